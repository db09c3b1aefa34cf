// Runs before every test file: the file's own database, so that no file sees another's rows (the
// outbox relay of one file would relay another file's events; start-up checks read every stored
// secret; the events feed reads every workspace's horizon). PostgreSQL when DATABASE_URL is set (a
// fresh database on that server, dropped by global-setup.ts at the end), else a fresh embedded
// PGlite directory: a copy of the migrated one global-setup.ts made (support/pglite-template.ts),
// so that no file pays for initdb and the migrations. Set before src/config.ts is first imported.
//
// A worker of the `shared` project (vitest.config.ts, `isolate: false`) runs several files one
// after another in one process, which imported the service (and read its configuration) for the
// first. Before each later file, src/reset-for-tests.ts forgets what the modules kept from the
// previous one, and support/database-reset.ts empties the open database back to its just-migrated
// state (every row deleted but the migrations' record, every sequence restarted; the rest of
// DATA_DIR goes too, such as the webhook secrets' key file: each process has a DATA_DIR of its
// own on PostgreSQL as well). So every file starts from a
// just-migrated database, as it would in a process of its own, and keeps only the imports and the
// open database. When the schema is no longer the migrated one (or the database cannot be used),
// the database is closed and made again instead: the same DATA_DIR from the template, or the same
// PostgreSQL database name dropped and created (the test kit migrates it, support/fixtures.ts).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { emptyMigratedDatabase } from './database-reset.ts';
import { copyMigratedPglite } from './pglite-template.ts';

async function createDatabase(baseUrl: string, name: string, { dropFirst = false } = {}) {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    if (dropFirst) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}

/** A copy of the migrated template in `dir`, made afresh (mkdtemp's owner-only mode, as the first time). */
function freshDataDir(dir: string) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { mode: 0o700 });
  copyMigratedPglite(dir);
}

if (process.env.TEST_PROCESS_DATABASE) {
  // A later file in a shared worker process (see above). Only a database this file made is emptied
  // (KEEP_DATA_DIR: the DATA_DIR given is used as it is).
  const { resetForTests } = await import('../../src/reset-for-tests.ts');
  await resetForTests({ closeDatabase: false });
  try {
    const dataDir = process.env.TEST_PROCESS_DATA_DIR;
    if (process.env.TEST_PROCESS_DATABASE_URL || dataDir) {
      const { db } = await import('../../src/db/db.ts');
      await db.withSession((run) => emptyMigratedDatabase(run, process.env.TEST_MIGRATED_SCHEMA ?? ''));
    }
    if (dataDir) {
      for (const entry of fs.readdirSync(dataDir)) if (entry !== 'pglite') fs.rmSync(path.join(dataDir, entry), { recursive: true, force: true });
    }
  } catch (err) {
    console.warn(`test/support/setup.ts: making the database again (${(err as Error).message})`);
    await resetForTests();
    const url = process.env.TEST_PROCESS_DATABASE_URL;
    if (url) {
      const name = new URL(url).pathname.slice(1);
      await createDatabase(process.env.TEST_BASE_DATABASE_URL!, name, { dropFirst: true });
    } else if (process.env.TEST_PROCESS_DATA_DIR) {
      freshDataDir(process.env.TEST_PROCESS_DATA_DIR);
    }
  }
} else {
  // The first file of a process. Not inherited: vitest starts each worker process from its own
  // (the main process's) environment.
  process.env.TEST_PROCESS_DATABASE = '1';
  process.env.TEST_BASE_DATABASE_URL ??= process.env.DATABASE_URL ?? '';
  const baseUrl = process.env.TEST_BASE_DATABASE_URL;
  if (baseUrl) {
    const name = `${process.env.TEST_RUN_DB_PREFIX ?? 'test_'}${crypto.randomBytes(5).toString('hex')}`;
    await createDatabase(baseUrl, name);
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    process.env.DATABASE_URL = process.env.TEST_PROCESS_DATABASE_URL = url.toString();
    // A data directory of its own on PostgreSQL too: the service keeps files there (the webhook
    // secrets' key file, the admin socket), and without one it used the checkout's `.data`, whose
    // key file a run replaced (a local `npm start` or `npm run cluster` then could not read its
    // own stored secrets).
    if (!process.env.KEEP_DATA_DIR) {
      process.env.DATA_DIR = process.env.TEST_PROCESS_DATA_DIR = fs.mkdtempSync(path.join(process.env.TEST_RUN_DIR ?? os.tmpdir(), 'ticketing-test-'));
    }
  } else if (!process.env.KEEP_DATA_DIR) {
    // In the run's folder, which global-setup.ts removes at the end (a copy is 40 MB).
    process.env.DATA_DIR = process.env.TEST_PROCESS_DATA_DIR = fs.mkdtempSync(path.join(process.env.TEST_RUN_DIR ?? os.tmpdir(), 'ticketing-test-'));
    copyMigratedPglite(process.env.DATA_DIR);
  }
}
process.env.LOG_LEVEL ??= 'warn';
process.env.NODE_ENV ??= 'test';
// No test asks a DNS server beyond loopback: webhook host names go to a loopback port where none
// listens (refused at once), unless a file starts its own server (support/dns-server.ts).
process.env.WEBHOOK_DNS_SERVERS ??= '127.0.0.1:9';
