import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// Files that run in a process of their own (vitest's isolation: a fresh import of the service for
// each). Every other file runs in the `shared` project: a worker process imports the service once
// and runs its files one after another, which saves about 4 s of CPU per file. Each of those files
// still starts from a just-migrated database (test/support/setup.ts empties the process's open one
// of the previous file's rows, with src/reset-for-tests.ts forgetting what modules kept from
// them), so a file that reads the whole database (the outbox relay, gauges, start-up checks) sees
// only its own rows. On PostgreSQL as on PGlite: no database is dropped under a connection that
// an earlier file's code may still hold. A
// file belongs here when it changes what the whole process shares: its own configuration
// (`loadConfig(env)`, environment variables), module mocks or fake timers, the PostgreSQL
// environment, or processes and browsers that it starts beside the service
// (docs/contributing/testing.md, "How files share a process").
const isolated = [
  'test/admin/private-data-dir.test.ts', // sets DATA_DIR for a first start
  'test/auth/session-https.test.ts', // loadConfig
  'test/auth/sign-in-throttle.test.ts', // vi.mock, fake timers
  'test/config/load-config.test.ts', // loadConfig, and that a second one throws
  'test/examples/webhook-receiver.test.ts', // loadConfig
  'test/rate-limit/rate-limit-redis.test.ts', // loadConfig
  'test/rate-limit/rate-limit.test.ts', // loadConfig
  'test/tracing/traces-off.test.ts', // loadConfig
  'test/tracing/traces.test.ts', // loadConfig, a global tracer provider
  'test/webhooks/message/dns-isolation.test.ts', // loadConfig (WEBHOOK_DNS_SERVERS)
  'test/webhooks/destinations/destinations.test.ts', // loadConfig (private targets, one-second retries), brokers of its own
  'test/e2e/*.test.ts', // the service's own processes
  'test/ui/*.test.ts', // loadConfig (test/ui/harness.ts), Chromium
  'test/fuzz/schemathesis.test.ts', // the built service as a process
  'test/clients/clients.test.ts', // generators and compilers as processes
  'test/audit/audit-workflow-actions.test.ts', // a Temporal client whose re-send wait it abandons (as http/readiness)
  // Stops Temporal under a readiness check whose gRPC retry outlives the closed client (the
  // SDK's retry timer throws `Channel has been shut down` into whatever file runs next).
  'test/http/readiness.test.ts',
  // Installs the engine's interleaving hook and, when it starts a new time-skipping server, a
  // filter for the old client's `Channel has been shut down` (test/webhooks/simulation/stack.ts).
  'test/webhooks/simulation/simulation.test.ts',
  // `// @vitest-environment postgres` (test/support/postgres-environment.ts): a database each.
  'test/auth/revocation-instances.test.ts',
  'test/auth/revocation-listener.test.ts',
  'test/db/fair-pool.test.ts',
  'test/db/migrations.test.ts',
  'test/db/notify-listener-reconnect.test.ts',
  'test/events/events-feed-horizon.test.ts',
  'test/webhooks/delivery/engine-races.test.ts',
  'test/webhooks/subscriptions/secret-key-races.test.ts',
];

export default defineConfig({
  // Node resolves `graphql` to its CommonJS build (as Pothos and Yoga load it); Vite would pick
  // the .mjs one, and two graphql realms refuse each other's schema.
  // `// @vitest-environment postgres` at the top of a file that needs PostgreSQL itself names
  // test/support/postgres-environment.ts (vitest looks environments up as vitest-environment-<name>).
  resolve: {
    alias: [
      { find: /^graphql$/, replacement: require.resolve('graphql') },
      { find: /^vitest-environment-postgres$/, replacement: fileURLToPath(new URL('test/support/postgres-environment.ts', import.meta.url)) },
    ],
  },
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    // V8 compiles WebAssembly with its baseline compiler only (Liftoff), never tiering up to
    // TurboFan: PGlite's Postgres is a large WebAssembly module, and optimising it costs more CPU
    // than a test process lives to win back (docs/contributing/testing.md, "Third round").
    execArgv: ['--liftoff-only'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: more parallel files only contend for them (PGlite and Temporal are CPU-bound).
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts', 'src/**/*.test.ts'], exclude: isolated, isolate: false } },
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
    ],
  },
});
