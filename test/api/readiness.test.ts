// /healthz and /readyz: ready while the database, its migrations and Temporal (the API's client,
// the worker's polling) answer; 503 naming the failing check once Temporal is stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseAnswers, migrationsApplied } from '../../src/db/db.ts';
import { createApp } from '../../src/http/app.ts';
import { healthRoutes } from '../../src/http/health.ts';
import { closeTemporal, temporalAnswers, useTemporal } from '../../src/temporal/client.ts';
import { superviseWorker } from '../../src/worker.ts';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.ts';
import { ensureMigrated } from '../support/fixtures.ts';
import { freePort } from '../support/http.ts';

// Not test/support/temporal.ts: it installs the SDK's runtime, which startWorker installs itself.

describe('/healthz and /readyz', () => {
  let dev: DevServer;
  let worker: ReturnType<typeof superviseWorker>;

  beforeAll(async () => {
    await ensureMigrated();
    dev = await startDevServer({ port: await freePort() });
    useTemporal(dev.address);
    worker = superviseWorker(dev.address, async () => undefined);
  }, 180_000);

  afterAll(async () => {
    await worker?.stop();
    await closeTemporal();
    await dev?.stop();
  }, 60_000);

  const get = async (app: { fetch: (r: Request) => Response | Promise<Response> }, path: string) => {
    const res = await app.fetch(new Request(`http://localhost${path}`));
    return { status: res.status, cache: res.headers.get('cache-control'), body: await res.json() };
  };

  it('the app checks the database and its migrations by default', async () => {
    const app = createApp();
    expect(await get(app, '/healthz')).toEqual({ status: 200, cache: 'no-store', body: { status: 'ok' } });
    // Polled: Prisma's first query (its engine loading) can take longer than a check's 2 s on a busy machine.
    await expect
      .poll(() => get(app, '/readyz'), { timeout: 30_000, interval: 500 })
      .toEqual({ status: 200, cache: 'no-store', body: { status: 'ready', checks: { database: 'ok', migrations: 'ok' } } });
  });

  it('goes 503, naming only the failing checks, when Temporal is stopped', { timeout: 180_000 }, async () => {
    const readiness = { database: databaseAnswers, migrations: migrationsApplied, temporal: temporalAnswers, worker: () => worker.polling() };
    const api = createApp({ readiness });
    // The worker role's listener (HEALTH_PORT) serves the same two routes alone.
    const workerHealth = healthRoutes(readiness);
    const ready = { status: 'ready', checks: { database: 'ok', migrations: 'ok', temporal: 'ok', worker: 'ok' } };
    await expect.poll(async () => (await get(api, '/readyz')).body, { timeout: 120_000, interval: 500 }).toEqual(ready);
    expect(await get(workerHealth, '/readyz')).toEqual({ status: 200, cache: 'no-store', body: ready });

    await dev.stop();
    const notReady = { status: 'not_ready', checks: { database: 'ok', migrations: 'ok', temporal: 'failing', worker: 'failing' } };
    for (const app of [api, workerHealth]) expect(await get(app, '/readyz')).toEqual({ status: 503, cache: 'no-store', body: notReady });
    // Alive all the same: nothing for a restart to fix in this process.
    expect((await get(api, '/healthz')).status).toBe(200);
  });
});
