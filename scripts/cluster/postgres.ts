// PostgreSQL from the OS's packages as the postgres image sets it up: a superuser and a database
// named by POSTGRES_USER/POSTGRES_DB with a password for TCP connections, then the same init
// script (docker/postgres-init.sql: the Temporal server's role). Installing, initdb and pg_ctl as
// the cluster's owner: scripts/throwaway-postgres.ts.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fromRoot } from '../../src/paths.ts';
import { ensurePostgres, ownDir, pgCtlStart, runAsOwner } from '../throwaway-postgres.ts';
import { postgresEnv, versions } from './topology.ts';

export interface Postgres {
  dir: string;
  port: number;
}

const bin = (name: string) => path.join(`/usr/lib/postgresql/${versions.postgresMajor}/bin`, name);
const asRoot = process.getuid?.() === 0;
const dataDir = (pg: Postgres) => path.join(pg.dir, 'data');

/**
 * The folder of the cluster's PostgreSQL (data, socket, log). Run as ourselves, `<cluster>/postgres`.
 * As root it runs as the postgres user, who cannot enter `.data` once `npm start` has made it 0700
 * (and must not: it is the service's): a folder of its own instead, one per cluster folder, under
 * the postgres user's home, owned by postgres and 0700.
 */
export function postgresDirFor(clusterDir: string): string {
  if (!asRoot) return path.join(clusterDir, 'postgres');
  const id = crypto.createHash('sha256').update(path.resolve(clusterDir)).digest('hex').slice(0, 16);
  return path.join(POSTGRES_HOME, 'ticketing-clusters', id);
}
const POSTGRES_HOME = '/var/lib/postgresql';
export const postgresLog = (pg: Postgres) => path.join(pg.dir, 'postgres.log');

function initialise(pg: Postgres, log: (line: string) => void): void {
  const env = postgresEnv();
  if (asRoot) {
    // Each folder made on the way belongs to postgres (its home may not exist yet), the last one 0700.
    for (const dir of [POSTGRES_HOME, path.dirname(pg.dir), pg.dir]) {
      if (existsSync(dir)) continue;
      mkdirSync(dir, { mode: 0o700 });
      ownDir(dir);
    }
    try {
      runAsOwner('test', ['-w', pg.dir]);
    } catch {
      throw new Error(`PostgreSQL runs as the postgres user, who cannot write to ${pg.dir}: give that folder to postgres (chown postgres ${pg.dir})`);
    }
  } else {
    mkdirSync(pg.dir, { recursive: true });
  }
  log(`creating a PostgreSQL ${versions.postgresMajor} cluster in ${dataDir(pg)}`);
  const pwfile = path.join(pg.dir, 'pwfile');
  // Read by initdb as the cluster's owner, and nobody else (whatever the umask).
  writeFileSync(pwfile, `${env.POSTGRES_PASSWORD}\n`, { mode: 0o600 });
  ownDir(pwfile);
  try {
    runAsOwner(bin('initdb'), ['-D', dataDir(pg), '-U', env.POSTGRES_USER, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8']);
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** Starts the cluster (creating it the first time); returns when it accepts connections. */
export function startPostgres(pg: Postgres, log: (line: string) => void): void {
  ensurePostgres(versions.postgresMajor);
  const fresh = !existsSync(path.join(dataDir(pg), 'PG_VERSION'));
  if (fresh) initialise(pg, log);
  if (!postgresRunning(pg)) pgCtlStart(path.dirname(bin('pg_ctl')), dataDir(pg), { port: pg.port, socketDir: pg.dir, log: postgresLog(pg) });
  const marker = path.join(pg.dir, '.initialised');
  if (!existsSync(marker)) {
    const env = postgresEnv();
    psql(pg, 'postgres', ['-c', `CREATE DATABASE ${env.POSTGRES_DB}`]);
    psql(pg, env.POSTGRES_DB, ['-f', fromRoot('docker', 'postgres-init.sql')]);
    writeFileSync(marker, '');
  }
}

function psql(pg: Postgres, database: string, args: string[]): void {
  execFileSync(bin('psql'), ['-h', pg.dir, '-p', String(pg.port), '-U', postgresEnv().POSTGRES_USER, '-d', database, '-v', 'ON_ERROR_STOP=1', '-q', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function stopPostgres(pg: Postgres): boolean {
  if (!postgresRunning(pg)) return false;
  runAsOwner(bin('pg_ctl'), ['-D', dataDir(pg), '-m', 'fast', '-w', 'stop']);
  return true;
}

/** Immediate shutdown (no checkpoint: the next start replays the WAL, as after a crash); false when it was not running. */
export function crashPostgres(pg: Postgres): boolean {
  if (!postgresRunning(pg)) return false;
  runAsOwner(bin('pg_ctl'), ['-D', dataDir(pg), '-m', 'immediate', '-w', 'stop']);
  return true;
}

/** The postmaster's pid when it runs (first line of postmaster.pid, checked by pg_ctl status). */
export function postgresPid(pg: Postgres): number | undefined {
  if (!postgresRunning(pg)) return undefined;
  return Number(readFileSync(path.join(dataDir(pg), 'postmaster.pid'), 'utf8').split('\n')[0]);
}

function postgresRunning(pg: Postgres): boolean {
  if (!existsSync(path.join(dataDir(pg), 'postmaster.pid')) || !existsSync(bin('pg_ctl'))) return false;
  try {
    runAsOwner(bin('pg_ctl'), ['-D', dataDir(pg), 'status']);
    return true;
  } catch {
    return false;
  }
}

/** pg_isready over TCP, as the app connects. */
export function postgresReady(pg: Postgres): boolean {
  try {
    execFileSync(bin('pg_isready'), ['-h', '127.0.0.1', '-p', String(pg.port), '-U', postgresEnv().POSTGRES_USER, '-d', postgresEnv().POSTGRES_DB, '-q'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
