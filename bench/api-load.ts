// What the API benchmarks (api.ts, api-cost.ts) share: their child processes, the load of each
// case (autocannon), and the CPU time a server process has used.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import autocannon, { type Result } from 'autocannon';
import type { BenchFixture } from './servers/listen.ts';

export interface BenchCase {
  id: string;
  name: string;
  method: 'GET' | 'POST';
  path: string;
  idempotent?: boolean;
}

export const children: ChildProcess[] = [];

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs a script in its own node process (the pid is the script's: tsx, when needed, is a loader). */
export function start<T>(file: string, env: NodeJS.ProcessEnv, args: string[] = [], execArgv: string[] = [], timeoutMs = 60_000): { child: ChildProcess; message: Promise<T> } {
  const child = fork(file, args, { env, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  const message = new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not report within ${timeoutMs / 1000} s`)), timeoutMs);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m as T);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited (${code}) before reporting`));
    });
  });
  return { child, message };
}

/** CPU time (user + system, all threads) the process has used so far, in ms; Linux ticks are 10 ms. */
export function cpuMsOf(child: ChildProcess): number {
  const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After "pid (comm) ": state is field 3, utime 14 and stime 15 (1-based), i.e. indexes 11 and 12 here.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

/** `seconds` of the case against the server at `url`, `connections` at once. */
export function load(url: string, c: BenchCase, fixture: BenchFixture, seconds: number, connections: number): Promise<Result> {
  const headers: Record<string, string> = { authorization: `Bearer ${fixture.apiKey}` };
  let body: string | undefined;
  if (c.method === 'POST') {
    headers['content-type'] = 'application/json';
    if (c.idempotent) headers['idempotency-key'] = 'bench-[<id>]';
    body = JSON.stringify({
      boardId: fixture.boardId,
      subject: 'Benchmark ticket',
      description: 'Created under load',
      requesterEmail: 'customer@example.test',
      fields: [{ fieldId: fixture.productFieldId, value: 'API' }],
    });
  }
  return autocannon({
    url: url + c.path,
    connections,
    duration: seconds,
    timeout: 10,
    method: c.method,
    headers,
    body,
    idReplacement: c.idempotent === true,
  });
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const mark = (ok: boolean) => (ok ? '**pass**' : '**FAIL**');
