// /healthz and /readyz: ready while the database, its migrations and Temporal (the API's client,
// the worker's polling) answer; 503 naming the failing check once Temporal is stopped; a worker
// making its first connection is `starting`, one whose first start failed `failing`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseAnswers, migrationsApplied } from '../../src/db/db.ts';
import { createApp } from '../../src/http/app.ts';
import { healthRoutes, readiness as checkReadiness, Starting } from '../../src/http/health.ts';
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

  it('names a check that rejects with Starting `starting`, and any other failure `failing`', async () => {
    const app = healthRoutes({ up: async () => undefined, starting: async () => Promise.reject(new Starting('first connection')), down: async () => Promise.reject(new Error('refused')) });
    expect(await get(app, '/readyz')).toEqual({ status: 503, cache: 'no-store', body: { status: 'not_ready', checks: { up: 'ok', starting: 'starting', down: 'failing' } } });
  });

  it('a worker is `starting` until its first start has run, `failing` once a first start has failed', { timeout: 120_000 }, async () => {
    const connecting = superviseWorker(dev.address, async () => undefined);
    try {
      // Asked in the same tick: its first connection cannot have been made yet.
      const first = checkReadiness({ worker: () => connecting.polling() });
      expect(await first).toEqual({ status: 'not_ready', checks: { worker: 'starting' } });
      await expect.poll(async () => (await checkReadiness({ worker: () => connecting.polling() })).checks.worker, { timeout: 90_000, interval: 250 }).toBe('ok');
    } finally {
      await connecting.stop();
    }

    // Nothing listens there: the first start fails, and the worker says so while it retries.
    const nowhere = superviseWorker(`127.0.0.1:${await freePort()}`, async () => undefined);
    try {
      await expect.poll(async () => (await checkReadiness({ worker: () => nowhere.polling() })).checks.worker, { timeout: 60_000, interval: 250 }).toBe('failing');
    } finally {
      await nowhere.stop();
    }
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
