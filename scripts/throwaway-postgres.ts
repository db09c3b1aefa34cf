// PostgreSQL from Debian's packages, run by us: the binaries (installed with apt-get as root when
// missing), initdb and pg_ctl as the cluster's owner (initdb refuses to run as root, so as root the
// cluster belongs to the postgres system user), and a throwaway cluster on a free loopback port
// with trust auth under a temp dir, for CI, the benchmarks and tests without DATABASE_URL.
//
//   npx tsx scripts/throwaway-postgres.ts start [database]   prints DATABASE_URL=… and PGDIR=…
//   npx tsx scripts/throwaway-postgres.ts stop <PGDIR>       stops it and removes the folder
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { aptInstall } from './apt.ts';
import { freePort } from './free-port.ts';

const root = '/usr/lib/postgresql';
const asRoot = process.getuid?.() === 0;

/** The bin folder of PostgreSQL `major`, or of the newest installed when omitted; undefined when missing. */
export function postgresBinDir(major?: number): string | undefined {
  const installed = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  const version = major === undefined ? installed.sort((a, b) => Number(a) - Number(b)).at(-1) : installed.find((v) => v === String(major));
  return version && path.join(root, version, 'bin');
}

/** The bin folder, installing Debian's package first when it is missing (as root on Debian). */
export function ensurePostgres(major?: number): string {
  const found = postgresBinDir(major);
  if (found) return found;
  aptInstall([major === undefined ? 'postgresql' : `postgresql-${major}`], 'PostgreSQL');
  return postgresBinDir(major)!;
}

/** Runs a PostgreSQL tool as the cluster's owner: the postgres system user when we are root. */
export function runAsOwner(command: string, args: string[], timeout = 120_000): string {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout });
}

/** Hands `dir` to the cluster's owner (creating the postgres system user if needed) when we are root. */
export function ownDir(dir: string): void {
  if (!asRoot) return;
  try {
    execFileSync('id', ['postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', 'postgres']);
  }
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  chownSync(dir, id('-u'), id('-g'));
}

/** pg_ctl start on `port`, listening on loopback and on a socket in `socketDir`. */
export function pgCtlStart(bin: string, data: string, opts: { port: number; socketDir: string; log: string; settings?: string }): void {
  const options = `-p ${opts.port} -k ${opts.socketDir} -c listen_addresses=127.0.0.1${opts.settings ? ` ${opts.settings}` : ''}`;
  runAsOwner(path.join(bin, 'pg_ctl'), ['-D', data, '-l', opts.log, '-w', '-t', '120', '-o', options, 'start']);
}

export interface ThrowawayPostgres {
  url: string;
  /** The cluster's folder (data, socket, log): `stopThrowawayPostgres(dir)` ends it from another process. */
  dir: string;
  stop(): void;
}

/**
 * A new cluster on a free port with trust auth (no fsync: nothing in it is worth keeping) and an
 * empty `database`. With `ownerPid`, a detached watcher stops it once that process is gone, also
 * when it was killed before it could call `stop()` (an interrupted test run).
 */
export async function startThrowawayPostgres({ database = 'ticketing_test', ownerPid }: { database?: string; ownerPid?: number } = {}): Promise<ThrowawayPostgres> {
  const bin = ensurePostgres();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'throwaway-pg-'));
  const stop = () => stopThrowawayPostgres(dir);
  try {
    ownDir(dir);
    const port = await freePort();
    runAsOwner(path.join(bin, 'initdb'), ['-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
    pgCtlStart(bin, path.join(dir, 'data'), { port, socketDir: dir, log: path.join(dir, 'log'), settings: '-c max_connections=200 -c fsync=off' });
    execFileSync(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-qc', `CREATE DATABASE ${database}`, 'postgres'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 30_000,
    });
    if (ownerPid !== undefined) watchOwner(ownerPid, dir);
    return { url: `postgresql://postgres@127.0.0.1:${port}/${database}`, dir, stop };
  } catch (err) {
    stop();
    throw err;
  }
}

/** Immediate shutdown (nothing to keep) and the folder removed; harmless when already stopped. */
function stopThrowawayPostgres(dir: string): void {
  const bin = postgresBinDir();
  try {
    if (bin && existsSync(path.join(dir, 'data', 'postmaster.pid'))) runAsOwner(path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), '-m', 'immediate', 'stop'], 60_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `throwaway-postgres.ts watch <pid> <dir>` on its own, outliving the process that started it. */
function watchOwner(pid: number, dir: string): void {
  const self = fileURLToPath(import.meta.url);
  const watcher = spawn(process.execPath, ['--import', 'tsx', self, 'watch', String(pid), dir], {
    cwd: path.dirname(self),
    detached: true,
    stdio: 'ignore',
  });
  watcher.unref();
}

/** Stops the cluster in `dir` once process `pid` has ended; ends by itself when the folder is gone (stopped already). */
async function watch(pid: number, dir: string): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  while (existsSync(dir) && alive()) await new Promise((r) => setTimeout(r, 1000));
  if (existsSync(dir)) stopThrowawayPostgres(dir);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [command, arg] = process.argv.slice(2);
  if (command === 'start') {
    const pg = await startThrowawayPostgres(arg ? { database: arg } : {});
    console.log(`DATABASE_URL=${pg.url}\nPGDIR=${pg.dir}`);
  } else if (command === 'stop' && arg) {
    stopThrowawayPostgres(arg);
  } else if (command === 'watch' && arg && process.argv[4]) {
    await watch(Number(arg), process.argv[4]);
  } else {
    console.error('usage: throwaway-postgres.ts start [database] | stop <PGDIR>');
    process.exit(2);
  }
}
