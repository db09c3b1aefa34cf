// Detached processes with a pid file and a log each, under the cluster's directory. A pid file
// holds the pid and the process's start time (Linux /proc), so that a stale file never makes
// `down` signal an unrelated process that later got the same pid.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProcessDirs {
  run: string;
  logs: string;
}

export const pidFile = (dirs: ProcessDirs, name: string) => path.join(dirs.run, `${name}.pid`);
export const logFile = (dirs: ProcessDirs, name: string) => path.join(dirs.logs, `${name}.log`);

/** Field 22 of /proc/<pid>/stat (clock ticks since boot); undefined where there is no /proc. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid recorded for `name` when that very process still runs. */
export function runningPid(dirs: ProcessDirs, name: string): number | undefined {
  const file = pidFile(dirs, name);
  if (!existsSync(file)) return undefined;
  const [pid, started] = readFileSync(file, 'utf8').trim().split(' ');
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0 || !isAlive(n)) return undefined;
  if (started && startTime(n) !== undefined && startTime(n) !== started) return undefined;
  return n;
}

export interface StartOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Starts `command` in its own process group, output appended to its log; returns its pid. */
export function startDetached(dirs: ProcessDirs, name: string, command: string, args: string[], options: StartOptions = {}): number {
  mkdirSync(dirs.run, { recursive: true });
  mkdirSync(dirs.logs, { recursive: true });
  const log = openSync(logFile(dirs, name), 'a');
  writeFileSync(log, `\n--- ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: could not start ${command}`);
  child.unref();
  writeFileSync(pidFile(dirs, name), `${pid} ${startTime(pid) ?? ''}\n`);
  return pid;
}

/** SIGTERM to the process group, SIGKILL after `graceMs`; how it ended, undefined when it was not running. */
export async function stopDetached(dirs: ProcessDirs, name: string, graceMs = 15_000): Promise<'stopped' | 'killed' | undefined> {
  const pid = runningPid(dirs, name);
  rmSync(pidFile(dirs, name), { force: true });
  if (pid === undefined) return undefined;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // The group leader may be gone while its group is not, or the other way round.
      try { process.kill(pid, sig); } catch { /* already gone */ }
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && groupAlive(pid)) await sleep(100);
  if (!groupAlive(pid)) return 'stopped';
  signal('SIGKILL');
  return 'killed';
}

/** SIGKILL to the process group, at once (chaos testing); resolves once the group is gone. False when it was not running. */
export async function killDetached(dirs: ProcessDirs, name: string): Promise<boolean> {
  const pid = runningPid(dirs, name);
  rmSync(pidFile(dirs, name), { force: true });
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
  // Bounded: a killed process stays a zombie until its parent reaps it.
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && groupAlive(pid)) await sleep(50);
  return true;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
