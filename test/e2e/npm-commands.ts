// The README's commands, run for real on embedded defaults (no DATABASE_URL, no TEMPORAL_ADDRESS)
// in one data directory: `npm start` in its own process group (so that a test can SIGKILL npm,
// the service and its Temporal dev server together), and one-shot `npm run …` commands.
import { spawn, type ChildProcess } from 'node:child_process';
import { onFreePorts, type ServicePorts as Ports } from '../support/temporal.ts';

export type { Ports };

const root = new URL('../..', import.meta.url).pathname;

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
const started: ChildProcess[] = [];

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
 * `npm start`; resolves once the banner is printed, rejects if it exits first. When the exit says
 * a port was taken meanwhile, it starts again on fresh ports, written into `ports` (onFreePorts).
 */
export function npmStart(dataDir: string, ports: Ports): Promise<RunningService> {
  return onFreePorts((p) => startOnce(dataDir, p), ports);
}

async function startOnce(dataDir: string, ports: Ports): Promise<RunningService> {
  const child = spawn('npm', ['start'], { cwd: root, env: embeddedEnv(dataDir, ports), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let bannerSeen = false;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner in 150 s\n${out}\n${err}`)), 150_000);
    child.stdout.on('data', () => {
      if (!bannerSeen && out.includes('Database:')) {
        bannerSeen = true;
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(async (code) => {
      if (bannerSeen) return; // a stop or a kill after the start: stop() and kill() see to it
      clearTimeout(timer);
      // Its dev server may still hold a port; the next try should not find it. And the last
      // lines (which say why it ended) may still be in the pipes.
      await groupGone(child.pid!);
      await Promise.race([new Promise((r) => (child.stdout.readableEnded ? r(null) : child.stdout.once('end', r))), new Promise((r) => setTimeout(r, 2_000))]);
      reject(new Error(`exited with ${code}\n${out}\n${err}`));
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
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
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
