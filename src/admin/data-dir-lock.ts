// The embedded database serves one process: PGlite is PostgreSQL inside one process's memory, and
// a second process opening the same directory works on its own copy and loses writes. So every
// process that opens DATA_DIR/pglite (`npm start`, and `npm run cli` or `npm run migrate` when no
// service runs) first claims DATA_DIR/pglite.lock: created atomically (hard link of a complete
// file), holding the owner's pid. A lock left by a killed process (SIGKILL, power loss) is stale
// once that pid no longer runs, or runs another program (Linux: the pid's start time differs, as
// in a restarted container where the new service has the old one's pid), and is taken over.
import fs from 'node:fs';
import path from 'node:path';
import { makeDataDirPrivate } from '../db/private-data-dir.ts';

interface LockOwner {
  pid: number;
  /** Start time of the pid (/proc/<pid>/stat, clock ticks since boot); absent off Linux. */
  start?: string;
  /** What holds it, for messages: `npm start`, `npm run cli`, `npm run migrate`. */
  command: string;
}

export class DataDirBusy extends Error {
  constructor(
    readonly owner: LockOwner,
    readonly dataDir: string,
  ) {
    super(`The embedded database in ${dataDir} is in use by \`${owner.command}\` (pid ${owner.pid}); it serves one process at a time.`);
  }
}

export const lockFile = (dataDir: string) => path.join(dataDir, 'pglite.lock');

/** Fields of /proc/<pid>/stat after the command name (which is in parentheses and may hold spaces); undefined off Linux. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Field 22: the start time in clock ticks since boot. */
const startTime = (pid: number): string | undefined => procStat(pid)?.[19];

/** The lock file's text and owner (none when unreadable as one); null when there is no lock. */
function readLock(file: string): { text: string; owner?: LockOwner } | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    return { text, owner: Number.isInteger(owner.pid) && owner.pid > 0 ? owner : undefined };
  } catch {
    return { text };
  }
}

const held = new Set<string>();

function isRunning(owner: LockOwner, file: string): boolean {
  if (owner.pid === process.pid) return held.has(file);
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    // EPERM: the pid runs, under another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = procStat(owner.pid);
  // Field 3, the state: a killed process whose parent has not reaped it yet (Z, X) still answers
  // kill(pid, 0), but holds nothing (a SIGKILLed service's parent may be slow to reap, or never).
  if (fields && (fields[0] === 'Z' || fields[0] === 'X')) return false;
  const now = fields?.[19];
  return owner.start === undefined || now === undefined || now === owner.start;
}

/** Removes a stale lock, unless another process replaced it meanwhile (then it is put back). */
function removeStale(file: string, stale: string) {
  const aside = `${file}.${process.pid}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    // EEXIST: yet another process claimed it meanwhile; that one holds it now.
    if (fs.readFileSync(aside, 'utf8') !== stale) fs.linkSync(aside, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/**
 * Claims the data directory for this process, or throws DataDirBusy naming the process that holds
 * it. Returns the release function; the lock is also released when the process exits.
 */
export function claimDataDir(dataDir: string, command: string): () => void {
  makeDataDirPrivate(dataDir);
  const file = lockFile(dataDir);
  const mine = JSON.stringify({ pid: process.pid, start: startTime(process.pid), command } satisfies LockOwner);
  const draft = `${file}.${process.pid}.new`;
  fs.writeFileSync(draft, mine, { mode: 0o600 });
  try {
    for (;;) {
      try {
        fs.linkSync(draft, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const lock = readLock(file);
      if (lock === null) continue;
      if (lock.owner && isRunning(lock.owner, file)) throw new DataDirBusy(lock.owner, dataDir);
      removeStale(file, lock.text);
    }
  } finally {
    fs.rmSync(draft, { force: true });
  }
  held.add(file);
  const release = () => {
    if (!held.delete(file)) return;
    process.off('exit', release);
    if (readLock(file)?.text === mine) fs.rmSync(file, { force: true });
  };
  process.on('exit', release);
  return release;
}
