// `npm start`: the whole service on embedded defaults. With no DATABASE_URL it uses an
// embedded PGlite in DATA_DIR; with no TEMPORAL_ADDRESS it runs a local Temporal dev server
// (SQLite in DATA_DIR, Temporal Web on TEMPORAL_UI_PORT). `npm start -- api|worker` runs one
// part alone (needs PostgreSQL and a Temporal server shared by the parts).
import path from 'node:path';
// First: claims the embedded database's directory before db.ts opens it.
import './admin/claim-data-dir.ts';
import { config } from './config.ts';
import { logger } from './logger.ts';
import { databaseAnswers, db, migrate, migrationsApplied } from './db/db.ts';
import { createApp } from './http/app.ts';
import { healthRoutes, readiness as checkReadiness, type ReadinessChecks } from './http/health.ts';
import { serveHttp } from './http/serve.ts';
import { workspaceService } from './workspaces/workspace.service.ts';
import { secretRepository } from './webhooks/subscriptions/secret.repository.ts';
import { productionKeysMissing } from './webhooks/message/secret-box.ts';
import { ensureTemporalCli } from './temporal/binaries.ts';
import { startSupervisedDevServer } from './temporal/dev-server-supervised.ts';
import { superviseWorker } from './worker.ts';
import { closeTemporal, temporalAnswers, useTemporal } from './temporal/client.ts';
import { EVENT_OUTBOX_CHANNEL, startOutboxRelay } from './webhooks/fanout/outbox-relay.ts';
import { ensureRetentionSchedule } from './retention/retention.schedule.ts';
import { jobService } from './jobs/job.service.ts';
import { openAdminChannel } from './admin/admin-channel.ts';
import { metricsOnPublicPort, metricsRoutes } from './http/metrics-endpoint.ts';
import { measureReadiness } from './http/readiness-gauge.ts';
import { startTracing } from './tracing/tracing.ts';

type Mode = 'all' | 'api' | 'worker';
const mode = (process.argv[2] ?? 'all') as Mode;
if (!['all', 'api', 'worker'].includes(mode)) {
  console.error(`usage: npm start [-- all|api|worker]   (got ${mode})`);
  process.exit(2);
}
if (mode !== 'all' && db.kind === 'pglite') {
  console.error('The embedded database serves one process: run `npm start` (all parts), or set DATABASE_URL.');
  process.exit(2);
}

const stops: (() => Promise<unknown>)[] = [];
const banner: string[] = [];

async function main() {
  // Production keeps the keys of webhook signing secrets in its configuration, never in a key file one process makes.
  const keysMissing = productionKeysMissing();
  if (keysMissing) throw new Error(keysMissing);
  // Before any Temporal client or worker is made: they take their interceptors from it.
  const traces = await startTracing();
  // Stopped after the parts that make spans (those go first), exporting what they left.
  if (traces) stops.push(() => traces.shutdown());
  const applied = await migrate();
  if (applied.length) logger.info({ applied }, 'migrations applied');
  // No start with stored secrets this process cannot open (a lost key file is never made anew over them).
  await secretRepository.assertKeysPresent();

  if (mode !== 'worker' && config.seedDemo) {
    const demo = await workspaceService.seedDemoIfEmpty(config.http.publicBaseUrl);
    if (demo) {
      banner.push(
        'First run: created the demo workspace.',
        `  API key (shown once, every scope): ${demo.apiKey}`,
        `  Administrator sign-in: ${demo.admin.email} / ${demo.adminPassword}`,
        `  Try: curl -H "Authorization: Bearer ${demo.apiKey}" ${config.http.publicBaseUrl}/me`,
      );
    }
  }
  // `npm run cli` and `npm run migrate` ask this process: it alone may open the embedded database.
  if (db.kind === 'pglite') stops.unshift(await openAdminChannel(config.dataDir));

  let temporalAddress = config.temporal.address;
  let devServer: Awaited<ReturnType<typeof startSupervisedDevServer>> | undefined;
  if (!temporalAddress) {
    // Restarted on the same file and ports if it ever dies; the worker, the relay and the client
    // reconnect to it by themselves.
    devServer = await startSupervisedDevServer({
      executable: await ensureTemporalCli(),
      dbFile: path.join(config.dataDir, 'temporal.sqlite'),
      port: config.temporal.devServerPort,
      uiPort: config.temporal.uiPort,
      namespace: config.temporal.namespace,
      log: logger,
    });
    temporalAddress = devServer.address;
    stops.push(() => devServer!.stop());
  }
  const uiUrl = config.temporal.uiUrl ?? devServer?.uiUrl;
  const { client, taskQueue } = useTemporal(temporalAddress);
  stops.unshift(closeTemporal);
  const worker = mode === 'api' ? undefined : superviseWorker(temporalAddress, async () => {
    await ensureRetentionSchedule(client, taskQueue);
    await jobService.resumeUnfinished(client, taskQueue);
  });
  if (worker) stops.unshift(() => worker.stop());
  // Every part relays the outbox (they share the work through leases), so events go out
  // whichever parts run; it waits out a Temporal or database outage on its own. It wakes when
  // events commit (LISTEN/NOTIFY), with a slow poll behind that.
  const relay = startOutboxRelay({
    client,
    taskQueue,
    listen: (onEvents) => db.listen(EVENT_OUTBOX_CHANNEL, onEvents),
  });
  stops.unshift(() => relay.stop());

  // /readyz: the database and its migrations, and Temporal as this process uses it (the API
  // reaches the server; a worker polls it).
  const readiness: ReadinessChecks = { database: databaseAnswers, migrations: migrationsApplied };
  if (mode !== 'worker') readiness.temporal = temporalAnswers;
  if (worker) readiness.worker = () => worker.polling();
  measureReadiness(readiness);

  if (mode !== 'worker') {
    const http = await serveHttp(createApp({ readiness }).fetch, config.http.port, config.http.host);
    // First to stop: no new requests, the ones in flight finish while all else still runs.
    stops.unshift(() => http.close());
    const origin = `http://${config.http.host === '0.0.0.0' ? 'localhost' : config.http.host}:${http.port}`;
    banner.push(
      `REST API:  ${origin}/public/v1   (reference: ${origin}/public/v1/docs, OpenAPI: ${origin}/public/v1/openapi.json)`,
      `GraphQL:   ${origin}/graphql`,
      `Settings:  ${origin}/settings   (people sign in; the administrator above on first run)`,
      `Health:    ${origin}/healthz, ${origin}/readyz`,
    );
    if (metricsOnPublicPort()) banner.push(`Metrics:   ${origin}/metrics`);
  } else if (config.http.healthPort !== undefined) {
    // The worker role's operations port: its metrics too, unless they have their own port.
    const routes = healthRoutes(readiness);
    if (config.metrics.port === undefined) routes.route('/', metricsRoutes());
    const health = await serveHttp(routes.fetch, config.http.healthPort, config.http.host);
    stops.unshift(() => health.close());
    const origin = `http://${config.http.host === '0.0.0.0' ? 'localhost' : config.http.host}:${health.port}`;
    banner.push(`Health:    ${origin}/healthz, ${origin}/readyz${config.metrics.port === undefined ? `, ${origin}/metrics` : ''}`);
  }
  if (config.metrics.port !== undefined) {
    const metrics = await serveHttp(metricsRoutes().fetch, config.metrics.port, config.http.host);
    stops.unshift(() => metrics.close());
    banner.push(`Metrics:   http://${config.http.host === '0.0.0.0' ? 'localhost' : config.http.host}:${metrics.port}/metrics`);
  }
  if (config.temporal.metricsAddress && worker) banner.push(`Temporal worker metrics: http://${config.temporal.metricsAddress}/metrics`);
  banner.push(`Temporal:  ${temporalAddress}${uiUrl ? `   (Temporal Web: ${uiUrl})` : ''}`);
  if (traces) banner.push(`Traces:    OTLP/HTTP to ${config.tracing!.tracesUrl}`);
  banner.push(`Database:  ${db.kind === 'pglite' ? `embedded PGlite in ${path.join(config.dataDir, 'pglite')}` : 'PostgreSQL (DATABASE_URL)'}`);
  if (!(await untilReady(readiness))) return;
  console.log(['', ...banner, ''].join('\n'));
}

/** The banner says the service is up: it waits until /readyz would answer 200 (the worker's first connection, say). */
async function untilReady(checks: ReadinessChecks): Promise<boolean> {
  let told = Date.now();
  for (;;) {
    const answer = await checkReadiness(checks);
    if (answer.status === 'ready') return true;
    if (stopping) return false;
    if (Date.now() - told >= 15_000) {
      logger.info({ checks: answer.checks }, 'waiting until every readiness check passes');
      told = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  for (const stop of stops) await stop().catch((err) => logger.warn({ err }, 'error while stopping'));
  await db.close().catch(() => undefined);
  process.exit(process.exitCode ?? 0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

main().catch(async (err) => {
  logger.error({ err }, 'start-up failed');
  console.error(`Start-up failed: ${(err as Error).message}`);
  process.exitCode = 1;
  await shutdown('startup-failure');
});
