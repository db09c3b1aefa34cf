// The native cluster's process handling (scripts/cluster/processes.ts): pid files that never point
// `down` at an unrelated process, and SIGTERM then SIGKILL for a process that ignores SIGTERM.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { killDetached, logFile, pidFile, runningPid, startDetached, stopDetached, type ProcessDirs } from '../../scripts/cluster/processes.ts';

let root: string;
let dirs: ProcessDirs;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'cluster-processes-'));
  dirs = { run: path.join(root, 'run'), logs: path.join(root, 'logs') };
});
afterEach(async () => {
  for (const name of ['sleeper', 'stubborn']) await stopDetached(dirs, name, 100);
  rmSync(root, { recursive: true, force: true });
});

async function until(probe: () => boolean) {
  for (let i = 0; i < 100 && !probe(); i++) await new Promise((r) => setTimeout(r, 50));
}

describe('detached processes of the native cluster', () => {
  it('start with a pid file and a log, and stop on SIGTERM', async () => {
    const pid = startDetached(dirs, 'sleeper', 'sh', ['-c', 'echo started; exec sleep 60']);
    expect(runningPid(dirs, 'sleeper')).toBe(pid);
    await until(() => readFileSync(logFile(dirs, 'sleeper'), 'utf8').includes('started'));
    expect(readFileSync(logFile(dirs, 'sleeper'), 'utf8')).toContain('started');
    expect(await stopDetached(dirs, 'sleeper')).toBe('stopped');
    expect(runningPid(dirs, 'sleeper')).toBeUndefined();
    expect(await stopDetached(dirs, 'sleeper')).toBeUndefined();
  });

  it('are killed, with their children, when they ignore SIGTERM', async () => {
    // The log's first line repeats the command, so the shell's own output must differ from it: 42.
    const pid = startDetached(dirs, 'stubborn', 'sh', ['-c', 'trap "" TERM; sleep 60 & echo "$((6 * 7)) trapped"; wait']);
    await until(() => readFileSync(logFile(dirs, 'stubborn'), 'utf8').includes('42 trapped'));
    expect(await stopDetached(dirs, 'stubborn', 300)).toBe('killed');
    await until(() => { try { process.kill(-pid, 0); return false; } catch { return true; } });
    expect(() => process.kill(-pid, 0)).toThrow();
  });

  it('are killed at once, children included, by the chaos test (no SIGTERM handler runs)', async () => {
    const pid = startDetached(dirs, 'sleeper', 'sh', ['-c', 'trap "echo $((6 * 7)) terminated" TERM; sleep 60 & echo "$((6 * 6)) waiting"; wait']);
    await until(() => readFileSync(logFile(dirs, 'sleeper'), 'utf8').includes('36 waiting'));
    expect(await killDetached(dirs, 'sleeper')).toBe(true);
    await until(() => { try { process.kill(-pid, 0); return false; } catch { return true; } });
    expect(() => process.kill(-pid, 0)).toThrow();
    expect(readFileSync(logFile(dirs, 'sleeper'), 'utf8')).not.toContain('42 terminated');
    expect(runningPid(dirs, 'sleeper')).toBeUndefined();
    expect(await killDetached(dirs, 'sleeper')).toBe(false);
  });

  it('are not signalled through a pid file whose pid now names another process', () => {
    mkdirSync(dirs.run, { recursive: true });
    const file = pidFile(dirs, 'sleeper');
    // This test's own pid, recorded with another start time: the recorded process has exited and
    // its pid was reused, so it is not ours to stop.
    writeFileSync(file, `${process.pid} 1\n`);
    expect(runningPid(dirs, 'sleeper')).toBeUndefined();
    // Without a recorded start time the pid alone decides (the control).
    writeFileSync(file, `${process.pid}\n`);
    expect(runningPid(dirs, 'sleeper')).toBe(process.pid);
    rmSync(file);
  });
});
