// One version's webhook service for `npm run bench:guard`, in a child process of its own, kept
// up for the whole comparison so that the guard can alternate short phases between the two
// versions (A, B, A, B…) instead of paying a set-up per phase. As bench/webhook-side.ts, it takes
// the workspace set-up (bench/webhook-data.ts), the dev server and the worker process with the
// relay (bench/webhook-worker.ts) from the version's tree, on the database it is given; the
// receiver and the measuring are this checkout's. Commands over IPC:
//   { cmd: 'throughput', subscriptions: 1 | 2, events } → deliveries/s and machine CPU per delivery
//   { cmd: 'idle', seconds, everyMs }                    → event-to-first-attempt p50 / p99
//   { cmd: 'stop' }
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTestCa } from '../test/webhooks/receiver.ts';
import { startCaseReceiver, type CaseReceiver } from './webhook-case-receivers.ts';
import { machineCpu } from './webhook-measure.ts';
import { percentile } from './percentile.ts';
import { freePort } from '../scripts/free-port.ts';
import type { BenchData } from './webhook-data.ts';
import type { Arrival } from './webhook-receivers.ts';

export type GuardWebhookCommand = { cmd: 'throughput'; subscriptions: number; events: number } | { cmd: 'idle'; seconds: number; everyMs: number } | { cmd: 'stop' };
export interface GuardThroughput {
  deliveries: number;
  missing: number;
  perSecond: number;
  machineCpuMs: number;
}
export interface GuardLatency {
  n: number;
  missing: number;
  /** ms; null when the percentile fell on an event that never arrived. */
  p50: number | null;
  p99: number | null;
}

const { tree, databaseUrl } = JSON.parse(process.argv[2]) as { tree: string; databaseUrl: string };
const SUBSCRIPTIONS = [1, 2];
/** How long a phase's events may take to arrive. */
const LATE_MS = 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${path.basename(tree)}: ${m}`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'guard-webhooks-'));
const fromTree = (file: string) => pathToFileURL(path.join(tree, file)).href;

let receiver: CaseReceiver | undefined;
let worker: ChildProcess | undefined;
let server: { stop(): Promise<void> } | undefined;

async function waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

function workerSays(child: ChildProcess, message: unknown, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
    child.once('message', (m: { ok: boolean; error?: string }) => {
      clearTimeout(timer);
      if (m.ok) resolve();
      else reject(new Error(`worker failed: ${m.error}`));
    });
    child.send(message as object);
  });
}

async function setUp() {
  const tls = createTestCa();
  const caFile = path.join(tmp, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca);
  const fast = await startCaseReceiver(tls);
  receiver = fast;
  // The version's src/config.ts reads these when first imported, below.
  Object.assign(process.env, { DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn', NODE_ENV: 'production', SEED_DEMO: 'false', WEBHOOK_SECRET_KEYS: `guard:${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}` });
  const { setUpWorkspace } = (await import(fromTree('bench/webhook-data.ts'))) as typeof import('./webhook-data.ts');
  const { startDevServer } = (await import(fromTree('src/temporal/dev-server.ts'))) as typeof import('../src/temporal/dev-server.ts');
  const workspaces = new Map<number, { data: BenchData; paths: string[] }>();
  for (const k of SUBSCRIPTIONS) {
    const paths = Array.from({ length: k }, (_, i) => `/throughput-${k}/${i}`);
    workspaces.set(k, { data: await setUpWorkspace(paths.map((p) => fast.origin + p)), paths });
  }
  const idle = { data: await setUpWorkspace([`${fast.origin}/idle`]), paths: ['/idle'] };
  const dev = await startDevServer({ dbFile: path.join(tmp, 'temporal.sqlite'), port: await freePort() });
  server = dev;
  const env = { ...process.env, TEMPORAL_ADDRESS: dev.address, TEMPORAL_NAMESPACE: dev.namespace, NODE_EXTRA_CA_CERTS: caFile };
  const child = fork(path.join(tree, 'bench', 'webhook-worker.ts'), [], { cwd: tree, env, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  worker = child;
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`worker process exited (${code}) before it was ready`)));
  });
  await workerSays(child, { cmd: 'deliver' }, 300_000);
  // The set-up's events (each workspace's template ticket) go out before any phase.
  for (const { data, paths } of [...workspaces.values(), idle]) {
    const ids = await data.eventIdsAfter(0n);
    if (!(await waitFor(() => paths.every((p) => ids.every((id) => fast.arrivals(p).has(id))), 300_000))) throw new Error('set-up events were not delivered within 300 s');
  }
  return { fast, workspaces, idle, child };
}

function latencyOf(arrivals: Map<string, Arrival>, ids: string[]): GuardLatency {
  const ms = ids.map((id) => arrivals.get(id)).map((a) => (a ? a.firstAt - a.occurredAt : Infinity)).sort((a, b) => a - b);
  const missing = ms.filter((x) => x === Infinity).length;
  const p = (q: number) => (Number.isFinite(percentile(ms, q)) ? percentile(ms, q) : null);
  return { n: ms.length - missing, missing, p50: p(50), p99: p(99) };
}

const ready = setUp();

async function run(command: GuardWebhookCommand): Promise<unknown> {
  const { fast, workspaces, idle, child } = await ready;
  if (command.cmd === 'throughput') {
    const { data, paths } = workspaces.get(command.subscriptions)!;
    const cpu0 = machineCpu().busyMs;
    const ids = await data.writeEvents(command.events, 50, 4);
    const arrived = () => paths.every((p) => ids.every((id) => fast.arrivals(p).has(id)));
    await waitFor(arrived, LATE_MS);
    const cpu1 = machineCpu().busyMs;
    const got = paths.flatMap((p) => ids.map((id) => fast.arrivals(p).get(id)).filter((a) => a !== undefined));
    const seconds = (Math.max(...got.map((a) => a.firstAt)) - Math.min(...got.map((a) => a.occurredAt))) / 1000;
    const result: GuardThroughput = { deliveries: got.length, missing: ids.length * paths.length - got.length, perSecond: got.length / seconds, machineCpuMs: (cpu1 - cpu0) / Math.max(1, got.length) };
    return result;
  }
  if (command.cmd === 'idle') {
    // One event at a time, each in its own transaction, as a quiet workspace writes them.
    const started = performance.now();
    const writes: Promise<string[]>[] = [];
    for (let n = 0; n * command.everyMs < command.seconds * 1000; n++) {
      const wait = started + n * command.everyMs - performance.now();
      if (wait > 0) await sleep(wait);
      writes.push(idle.data.writeEvents(1, 1, 1));
    }
    const ids = (await Promise.all(writes)).flat();
    const arrivals = fast.arrivals('/idle');
    await waitFor(() => ids.every((id) => arrivals.has(id)), LATE_MS);
    return latencyOf(arrivals, ids);
  }
  await workerSays(child, { cmd: 'stop' }, 60_000).catch((err) => log(`stopping the worker: ${(err as Error).message}`));
  await idle.data.close();
  return null;
}

async function cleanup() {
  if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
  await server?.stop().catch(() => undefined);
  await receiver?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

ready.then(
  () => process.send!({ ok: true, ready: true }),
  async (err: Error) => {
    await cleanup();
    process.send!({ ok: false, error: err.stack ?? String(err) }, () => process.exit(1));
  },
);
process.on('message', (command: GuardWebhookCommand) => {
  run(command).then(
    async (result) => {
      if (command.cmd !== 'stop') return process.send!({ ok: true, result });
      await cleanup();
      process.send!({ ok: true, result }, () => process.exit(0));
    },
    (err: Error) => process.send!({ ok: false, error: err.stack ?? String(err) }),
  );
});
process.once('SIGTERM', () => void cleanup().finally(() => process.exit(130)));
