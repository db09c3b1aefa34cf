// Once per `npm test`, before any test file: provisions what the tests need beyond node_modules
// (scripts/provision.sh --for test: Temporal binaries, schemathesis, the client generators,
// promtool, chromium, redis-server, the message brokers) and hands the paths to the test processes through the
// environment (support/tools.ts reads them); without DATABASE_URL it makes (or finds) the migrated
// PGlite data directory that setup.ts copies for each worker process (support/pglite-template.ts);
// with DATABASE_URL it names this run's databases (setup.ts) and drops them at the end. Either way
// it hands setup.ts the fingerprint of a just-migrated schema (support/database-reset.ts). Without
// DATABASE_URL it starts a throwaway PostgreSQL for the files that need one
// (support/postgres-environment.ts), stopped at the end or, when the run is interrupted, by the
// helper's watcher once this process is gone.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { provisionForTests } from '../../scripts/provision-env.ts';
import { stopBrokers } from '../../scripts/brokers/broker-process.ts';
import { postgresBinDir, startThrowawayPostgres } from '../../scripts/throwaway-postgres.ts';
import { applyMigrations } from '../../src/db/migrations.ts';
import { schemaFingerprint } from './database-reset.ts';
import { migratedPgliteTemplate } from './pglite-template.ts';
import { runBuildDir } from './built-service.ts';

/** The fingerprint of a just-migrated schema on this server (a database made, migrated and dropped). */
async function migratedSchemaOn(base: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const runner = {
        exec: async (sql: string) => void (await client.query(sql)),
        query: async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as never[],
      };
      await applyMigrations(runner);
      return await schemaFingerprint(runner);
    } finally {
      await client.end();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.end();
  }
}

/**
 * vitest calls a global setup once for the root config and once for each project that extends it
 * (vitest.config.ts has two): three calls in this one process, which made three run folders and,
 * without DATABASE_URL, started three throwaway PostgreSQL servers (about 4–6 s each, before any
 * file ran) of which the files used the last. The first call sets the run up, the others share
 * it, and the last teardown ends it (whichever project's files end first).
 */
const process_ = globalThis as typeof globalThis & { ticketingTestRun?: { users: number; ready: Promise<() => Promise<void>> } };

export default async function setup() {
  const run = (process_.ticketingTestRun ??= { users: 0, ready: setupRun() });
  run.users += 1;
  const teardown = await run.ready;
  return async () => {
    run.users -= 1;
    if (run.users > 0) return;
    process_.ticketingTestRun = undefined;
    await teardown();
  };
}

async function setupRun(): Promise<() => Promise<void>> {
  provisionForTests();
  // What the files of this run share and make once (support/workflow-bundles.ts, and in dist/
  // support/built-service.ts) and their data directories (setup.ts), gone at the end.
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketing-test-run-'));
  process.env.TEST_RUN_DIR = runDir;
  // The message brokers that files start when they first ask (support/brokers.ts), in the run's
  // folder: none unless asked for, stopped here at the end or, when the run is interrupted, by
  // the watcher that the first start leaves beside them once this process is gone.
  const brokersDir = path.join(runDir, 'brokers');
  process.env.TEST_BROKERS_DIR = brokersDir;
  process.env.TEST_RUN_OWNER_PID = String(process.pid);
  const removeRunDir = async () => {
    await stopBrokers(brokersDir);
    fs.rmSync(runDir, { recursive: true, force: true });
    fs.rmSync(runBuildDir(runDir)!, { recursive: true, force: true });
  };
  const base = process.env.DATABASE_URL;
  if (!base) {
    // The embedded files each start from a copy of one migrated data directory (setup.ts).
    const template = await migratedPgliteTemplate();
    process.env.TEST_PGLITE_TEMPLATE = template.dir;
    process.env.TEST_MIGRATED_SCHEMA = template.fingerprint;
    // Provisioning installed PostgreSQL when it could; else its sentence fails the files needing it.
    if (!postgresBinDir()) return removeRunDir;
    const throwaway = await startThrowawayPostgres({ ownerPid: process.pid });
    process.env.TEST_POSTGRES_URL = throwaway.url;
    return async () => {
      await removeRunDir();
      throwaway.stop();
    };
  }
  const prefix = `test_${crypto.randomBytes(3).toString('hex')}_`;
  process.env.TEST_RUN_DB_PREFIX = prefix;
  process.env.TEST_MIGRATED_SCHEMA = await migratedSchemaOn(base, `${prefix}schema`);
  return async () => {
    await removeRunDir();
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`]);
      for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  };
}
