// Runs before every test file: the database of the file's process, so that files running side by
// side never see each other's rows (the outbox relay of one file would otherwise relay another
// file's events). PostgreSQL when DATABASE_URL is set (a fresh database on that server, dropped by
// global-setup.ts at the end), else a fresh embedded PGlite directory: a copy of the migrated one
// global-setup.ts made (support/pglite-template.ts), so that no file pays for initdb and the
// migrations. Set before src/config.ts is first imported.
//
// A worker of the `shared` project (vitest.config.ts) runs several files one after another in one
// process, which imported the service (and read its configuration) for the first: those files
// share that first file's database, each in workspaces of its own. An isolated file is a process
// of its own, so it always makes one.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { copyMigratedPglite } from './pglite-template.ts';

// Not inherited: vitest starts each worker process from its own (the main process's) environment.
if (!process.env.TEST_PROCESS_DATABASE) {
  process.env.TEST_PROCESS_DATABASE = '1';
  process.env.TEST_BASE_DATABASE_URL ??= process.env.DATABASE_URL ?? '';
  const baseUrl = process.env.TEST_BASE_DATABASE_URL;
  if (baseUrl) {
    const name = `${process.env.TEST_RUN_DB_PREFIX ?? 'test_'}${crypto.randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    process.env.DATABASE_URL = url.toString();
  } else if (!process.env.KEEP_DATA_DIR) {
    // In the run's folder, which global-setup.ts removes at the end (a copy is 40 MB).
    process.env.DATA_DIR = fs.mkdtempSync(path.join(process.env.TEST_RUN_DIR ?? os.tmpdir(), 'ticketing-test-'));
    copyMigratedPglite(process.env.DATA_DIR);
  }
}
process.env.LOG_LEVEL ??= 'warn';
process.env.NODE_ENV ??= 'test';
