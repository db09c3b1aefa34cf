// The README's commands, run for real on embedded defaults (no DATABASE_URL, no TEMPORAL_ADDRESS)
// in one data directory: `npm start` in its own process group (so that a test can SIGKILL npm,
// the service and its Temporal dev server together), and one-shot `npm run …` commands.
import { spawn, type ChildProcess } from 'node:child_process';
import { getFreePort } from '../support/temporal.ts';

const root = new URL('../..', import.meta.url).pathname;

export interface Ports {
  http: number;
  temporal: number;
  ui: number;
}

export function embeddedEnv(dataDir: string, ports?: Ports): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, NODE_ENV: 'development' };
  if (ports) Object.assign(env, { PORT: String(ports.http), TEMPORAL_PORT: String(ports.temporal), TEMPORAL_UI_PORT: String(ports.ui) });
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  return env;
}

export interface RunningService {
  child: ChildProcess;
  out: () => string;
  /** SIGTERM (npm passes it on); resolves with the exit code. */
  stop: () => Promise<number | null>;
  /** SIGKILL to the whole process group, as a crash or the OOM killer would. */
  kill: () => Promise<void>;
}

/** Every `npm start` of the file, for afterAll to kill what a failed test left running. */
export const started: ChildProcess[] = [];

export function killStarted() {
  for (const c of started) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // The group ended meanwhile.
    }
  }
}

/**
 * `npm start`; resolves once the banner is printed, rejects if it exits first. A port that
 * `getFreePort` handed out can be taken by another test file's process before the service binds
 * it (the Temporal dev server opens several ports of its own): then `ports` is given fresh ports
 * and the start is tried again, up to three times; any other early exit rejects at once.
 */
export async function npmStart(dataDir: string, ports: Ports): Promise<RunningService> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(dataDir, ports);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof PortTaken)) throw err;
      Object.assign(ports, { http: await getFreePort(), temporal: await getFreePort(), ui: await getFreePort() });
    }
  }
}

class PortTaken extends Error {}

async function startOnce(dataDir: string, ports: Ports): Promise<RunningService> {
  const child = spawn('npm', ['start'], { cwd: root, env: embeddedEnv(dataDir, ports), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner in 150 s\n${out}\n${err}`)), 150_000);
    child.stdout!.on('data', () => {
      if (out.includes('Database:')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(async (code) => {
      clearTimeout(timer);
      await groupGone(child.pid!);
      const text = `exited with ${code}\n${out}\n${err}`;
      reject(/EADDRINUSE|already in use/i.test(out + err) ? new PortTaken(text) : new Error(text));
    });
  });
  return {
    child,
    out: () => out,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
      // npm ends first; its node child is torn down a moment later (a large heap takes a while).
      await groupGone(child.pid!);
    },
  };
}

/** A command to its end: `npm run -s cli -- …`, or `npm start` that is expected to refuse. */
export function npm(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    started.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`npm ${args.join(' ')}: still running after 120 s\n${stdout}\n${stderr}`));
    }, 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Waits (up to 10 s) until no process of the group runs: kill(-pgid, 0) fails with ESRCH. */
async function groupGone(pgid: number) {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
