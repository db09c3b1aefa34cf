// Running the examples as integrators run them: each example as its own Node process (tsx's loader,
// as `npx tsx <file>` would) whose output the test reads; the service is test/support/http.ts's serveApp.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export interface ExampleProcess {
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Waits until the output matches; fails when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The exit code, once the process has ended. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Runs `examples/<file>` with these environment variables added. */
export function runExample(file: string, env: Record<string, string>): ExampleProcess {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'examples', file)], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const append = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

  return {
    output: () => out,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = out.match(pattern);
          if (!match) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${file}: no ${pattern} in ${timeoutMs} ms; output:\n${out}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then((code) => {
          if (!listeners.has(check)) return;
          done();
          reject(new Error(`${file} exited with ${code} before printing ${pattern}; output:\n${out}`));
        });
        check();
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
