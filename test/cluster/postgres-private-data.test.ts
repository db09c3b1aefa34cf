// The native cluster's PostgreSQL after `npm start` has made `.data` private (0700): it still
// comes up, and `.data` stays private. As root PostgreSQL runs as the postgres user, who cannot
// enter `.data`, so its data lives in a folder of its own, owned by postgres. Run as `npm start`
// and then `npm run cluster -- up` run them, in a throwaway repository folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDataDirPrivate } from '../../src/db/private-data-dir.ts';
import { postgresDirFor, postgresReady, startPostgres, stopPostgres, type Postgres } from '../../scripts/cluster/postgres.ts';
import { freePort } from '../support/http.ts';

const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-private-'));
fs.chmodSync(repo, 0o755);
let pg: Postgres | undefined;

afterAll(() => {
  if (pg) {
    stopPostgres(pg);
    fs.rmSync(pg.dir, { recursive: true, force: true });
  }
  fs.rmSync(repo, { recursive: true, force: true });
});

describe('the native cluster’s PostgreSQL and the private data folder', () => {
  it('comes up after npm start has made .data 0700, which stays 0700', { timeout: 300_000 }, async () => {
    const dataDir = path.join(repo, '.data');
    makeDataDirPrivate(dataDir);
    pg = { dir: postgresDirFor(path.join(dataDir, 'cluster')), port: await freePort() };
    const log: string[] = [];
    startPostgres(pg, (line) => log.push(line));
    expect(postgresReady(pg)).toBe(true);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    // Its own folder is private too.
    expect(fs.statSync(pg.dir).mode & 0o077).toBe(0);
  });
});
