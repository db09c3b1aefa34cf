// One version's run of the webhook cases (bench/webhook-cases.ts), in a child process of its own:
// that version's workspace set-up (bench/webhook-data.ts), dev server (src/temporal/dev-server.ts)
// and worker process with the relay (bench/webhook-worker.ts) are imported from the version's
// tree, so each version runs its own code and flags; the receivers and the measuring are this
// checkout's, the same for both. Cases run in order throughput, burst, noisy neighbour, wide
// workspace (the last two leave slow backlogs behind: run them alone), each on workspaces of its
// own; the result goes back over IPC.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTestCa } from '../test/webhooks/receiver.ts';
import { startCaseReceiver, type CaseReceiver } from './webhook-case-receivers.ts';
import { cpuMsOfPid, machineCpu } from './webhook-measure.ts';
import { percentile } from './percentile.ts';
import { freePort } from '../scripts/free-port.ts';
import type { BenchData } from './webhook-data.ts';
import { stagesWith, type StageRow, type StageTimes } from './embedded-stages.ts';

export interface SideSpec {
  /** Root of the version's tree. */
  tree: string;
  /** An empty database for this run. */
  databaseUrl: string;
  throughput?: { subscriptions: number[]; events: number };
  burst?: { events: number; intervalMs: number; idleSeconds: number; windowSeconds: number };
  noisy?: { events: number; delayMs: number; perSecond: number; idleSeconds: number; windowSeconds: number };
  /** One workspace with `subscriptions` slow subscriptions at `maxInFlight` each, against another's steady events. */
  wide?: { subscriptions: number; maxInFlight: number; events: number; delayMs: number; perSecond: number; idleSeconds: number; windowSeconds: number };
}

export interface Latencies {
  n: number;
  missing: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface ThroughputResult {
  subscriptions: number;
  deliveries: number;
  missing: number;
  duplicates: number;
  seconds: number;
  perSecond: number;
  /** CPU per delivery, ms: the whole machine, the worker process, the dev server. */
  machineCpuMs: number;
  workerCpuMs: number;
  serverCpuMs: number;
  /** Commit → first attempt at the receiver, backlog included. */
  latency: Latencies;
}

export interface SideResult {
  throughput?: ThroughputResult[];
  /** `stages`: where B's time went during the burst (bench/embedded-stages.ts; absent in versions before it). */
  burst?: { idle: Latencies; during: Latencies; bulkDelivered: number; bulkExpected: number; bulkSeconds: number | null; stages?: StageTimes };
  noisy?: { idle: Latencies; during: Latencies; slowArrived: number; slowPeakConnections: number; slowPeakRequests: number };
  wide?: { idle: Latencies; during: Latencies; slowArrived: number; slowPeakConnections: number; slowPeakRequests: number };
}

const spec = JSON.parse(process.argv[2]) as SideSpec;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${path.basename(spec.tree)}: ${m}`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-side-'));
const fromTree = (file: string) => pathToFileURL(path.join(spec.tree, file)).href;

/** Event-to-arrival percentiles; an event that has not arrived counts as infinitely late (reported as n/a), never as left out. */
/** One statement or a few on a connection of its own, closed after. */
async function withDatabase<T>(url: string, fn: (sql: import('pg').Client) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  try {
    return await fn(sql);
  } finally {
    await sql.end();
  }
}

function latencies(arrivals: Map<string, { firstAt: number; occurredAt: number }>, ids: string[]): Latencies {
  const ms = ids.map((id) => arrivals.get(id)).map((a) => (a ? a.firstAt - a.occurredAt : Infinity)).sort((a, b) => a - b);
  const missing = ms.filter((x) => x === Infinity).length;
  // JSON has no Infinity: null, which the report shows as n/a.
  const p = (q: number) => (Number.isFinite(percentile(ms, q)) ? percentile(ms, q) : (null as unknown as number));
  return { n: ms.length - missing, missing, p50: p(50), p95: p(95), p99: p(99) };
}
/** How long the steady events of a latency phase may take to arrive after its window. */
const LATE_MS = 120_000;

async function waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** One event every `everyMs` for `seconds` (each in its own transaction); resolves with their ids. */
async function steadyEvents(data: BenchData, everyMs: number, seconds: number): Promise<string[]> {
  const started = performance.now();
  const writes: Promise<string[]>[] = [];
  for (let n = 0; n * everyMs < seconds * 1000; n++) {
    const wait = started + n * everyMs - performance.now();
    if (wait > 0) await sleep(wait);
    writes.push(data.writeEvents(1, 1, 1));
  }
  return (await Promise.all(writes)).flat();
}

const receivers: CaseReceiver[] = [];
let worker: ChildProcess | undefined;
let server: { stop(): Promise<void>; pid: number | undefined; address: string; namespace: string } | undefined;

function command(child: ChildProcess, message: unknown, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
    child.once('message', (m: { ok: boolean; error?: string; report?: unknown }) => {
      clearTimeout(timer);
      if (m.ok) resolve(m.report);
      else reject(new Error(`worker failed: ${m.error}`));
    });
    child.send(message as object);
  });
}

async function main(): Promise<SideResult> {
  const tls = createTestCa();
  const caFile = path.join(tmp, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca);
  const fast = await startCaseReceiver(tls);
  receivers.push(fast);
  const slow = spec.noisy ? await startCaseReceiver(tls, { delayMs: spec.noisy.delayMs }) : undefined;
  if (slow) receivers.push(slow);
  const wideSlow = spec.wide ? await startCaseReceiver(tls, { delayMs: spec.wide.delayMs }) : undefined;
  if (wideSlow) receivers.push(wideSlow);

  // The version's src/config.ts reads these when first imported, below.
  Object.assign(process.env, { DATABASE_URL: spec.databaseUrl, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn', NODE_ENV: 'production', SEED_DEMO: 'false', WEBHOOK_SECRET_KEYS: `bench:${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}` });
  // One key holds every subscription of the wide workspace (10 by default; the workspace's 50 allow them).
  if (spec.wide) process.env.DEFAULT_MAX_WEBHOOK_SUBSCRIPTIONS = String(Math.max(10, spec.wide.subscriptions));
  const { setUpWorkspace } = (await import(fromTree('bench/webhook-data.ts'))) as typeof import('./webhook-data.ts');
  const { startDevServer } = (await import(fromTree('src/temporal/dev-server.ts'))) as typeof import('../src/temporal/dev-server.ts');

  // Every workspace and subscription before the relay starts; each subscription on a path of its own.
  log('setting up workspaces and subscriptions');
  const throughputData: { k: number; data: BenchData; paths: string[] }[] = [];
  for (const k of spec.throughput?.subscriptions ?? []) {
    const paths = Array.from({ length: k }, (_, i) => `/throughput-${k}/${i}`);
    throughputData.push({ k, data: await setUpWorkspace(paths.map((p) => fast.origin + p)), paths });
  }
  const burstData = spec.burst && {
    bulk: await setUpWorkspace(['/bulk/1', '/bulk/2'].map((p) => fast.origin + p)),
    steady: await setUpWorkspace([`${fast.origin}/steady`]),
  };
  const noisyData = spec.noisy && slow && {
    slow: await setUpWorkspace([`${slow.origin}/slow`]),
    quiet: await setUpWorkspace([`${fast.origin}/quiet`]),
  };

  const widePaths = spec.wide ? Array.from({ length: spec.wide.subscriptions }, (_, i) => `/wide/${i}`) : [];
  const wideData = spec.wide && wideSlow && {
    many: await setUpWorkspace(widePaths.map((p) => wideSlow.origin + p)),
    quiet: await setUpWorkspace([`${fast.origin}/wide-quiet`]),
  };
  if (spec.wide && wideData) {
    // The highest bound each (WEBHOOK_MAX_IN_FLIGHT_LIMIT), set in SQL so that any version's set-up serves.
    const { maxInFlight } = spec.wide;
    await withDatabase(spec.databaseUrl, (sql) => sql.query('UPDATE "WebhookSubscription" SET "maxInFlight" = $1 WHERE "id" = ANY($2::text[])', [maxInFlight, wideData.many.subscriptionIds]));
  }

  log('starting the dev server and the worker process');
  server = await startDevServer({ dbFile: path.join(tmp, 'temporal.sqlite'), port: await freePort() });
  const env = { ...process.env, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace, NODE_EXTRA_CA_CERTS: caFile };
  worker = fork(path.join(spec.tree, 'bench', 'webhook-worker.ts'), [], { cwd: spec.tree, env, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const child = worker;
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`worker process exited (${code}) before it was ready`)));
  });
  await command(child, { cmd: 'deliver' }, 300_000);
  // The template tickets' events (written at set-up) go out first.
  const fastSetup = [...throughputData.map((t) => ({ data: t.data, paths: t.paths })), ...(burstData ? [{ data: burstData.bulk, paths: ['/bulk/1', '/bulk/2'] }, { data: burstData.steady, paths: ['/steady'] }] : []), ...(noisyData ? [{ data: noisyData.quiet, paths: ['/quiet'] }] : []), ...(wideData ? [{ data: wideData.quiet, paths: ['/wide-quiet'] }] : [])];
  for (const { data, paths } of fastSetup) {
    const ids = await data.eventIdsAfter(0n);
    if (!(await waitFor(() => paths.every((p) => ids.every((id) => fast.arrivals(p).has(id))), 300_000))) throw new Error('set-up events were not delivered within 300 s');
  }
  const serverPid = server.pid;
  const result: SideResult = {};

  if (spec.throughput) {
    result.throughput = [];
    for (const { k, data, paths } of throughputData) {
      const events = spec.throughput.events;
      log(`throughput: ${events} events × ${k} subscriptions`);
      const cpu0 = { machine: machineCpu().busyMs, worker: cpuMsOfPid(child.pid!), server: serverPid ? cpuMsOfPid(serverPid) : NaN };
      const ids = await data.writeEvents(events, 50, 4);
      const arrived = () => paths.every((p) => ids.every((id) => fast.arrivals(p).has(id)));
      await waitFor(arrived, Math.max(300_000, events * k * 200));
      const cpu1 = { machine: machineCpu().busyMs, worker: cpuMsOfPid(child.pid!), server: serverPid ? cpuMsOfPid(serverPid) : NaN };
      const got = paths.flatMap((p) => ids.map((id) => fast.arrivals(p).get(id)).filter((a) => a !== undefined));
      const seconds = (Math.max(...got.map((a) => a.firstAt)) - Math.min(...got.map((a) => a.occurredAt))) / 1000;
      const all = new Map(paths.flatMap((p) => ids.map((id) => [`${p} ${id}`, fast.arrivals(p).get(id)!] as const)).filter(([, a]) => a));
      const deliveries = got.length;
      result.throughput.push({
        subscriptions: k,
        deliveries,
        missing: ids.length * k - deliveries,
        duplicates: got.reduce((s, a) => s + a.count - 1, 0),
        seconds,
        perSecond: deliveries / seconds,
        machineCpuMs: (cpu1.machine - cpu0.machine) / Math.max(1, deliveries),
        workerCpuMs: (cpu1.worker - cpu0.worker) / Math.max(1, deliveries),
        serverCpuMs: (cpu1.server - cpu0.server) / Math.max(1, deliveries),
        latency: latencies(all, [...all.keys()]),
      });
      log(`throughput ×${k}: ${(deliveries / seconds).toFixed(0)} deliveries/s`);
    }
  }

  if (spec.burst && burstData) {
    const { events, intervalMs, idleSeconds, windowSeconds } = spec.burst;
    log(`burst: idle ${idleSeconds} s of one event every ${intervalMs} ms`);
    const steady = fast.arrivals('/steady');
    const idleIds = await steadyEvents(burstData.steady, intervalMs, idleSeconds);
    await waitFor(() => idleIds.every((id) => steady.has(id)), LATE_MS);
    log(`burst: ${events} events for two subscriptions at once, the steady one going on for ${windowSeconds} s`);
    const bulkStart = Date.now();
    const bulkIds = burstData.bulk.writeEvents(events, 50, 4);
    const duringIds = await steadyEvents(burstData.steady, intervalMs, windowSeconds);
    const windowEnd = Date.now();
    await waitFor(() => duringIds.every((id) => steady.has(id)), LATE_MS);
    // A breakdown, not a figure of the case: should it fail, the case's figures still stand.
    const stages = await withDatabase(spec.databaseUrl, (sql) => stagesWith(async (text, params) => (await sql.query<StageRow>(text, params)).rows, '/steady', bulkStart, windowEnd, steady)).catch((err) => {
      log(`burst: could not read the stages: ${err}`);
      return undefined;
    });
    const bulk = await bulkIds;
    // The next case starts on an empty queue: the rest of the burst is delivered first (not measured).
    const bulkDone = () => ['/bulk/1', '/bulk/2'].every((p) => bulk.every((id) => fast.arrivals(p).has(id)));
    const bulkComplete = bulkDone();
    const bulkArrivals = ['/bulk/1', '/bulk/2'].flatMap((p) => bulk.map((id) => fast.arrivals(p).get(id)).filter((a) => a !== undefined));
    const complete = bulkComplete;
    if (!bulkComplete && spec.noisy) {
      log('burst: letting the rest of the burst out before the next case');
      await waitFor(bulkDone, Math.max(300_000, events * 100));
    }
    result.burst = {
      idle: latencies(steady, idleIds),
      during: latencies(steady, duringIds),
      bulkDelivered: bulkArrivals.length,
      bulkExpected: bulk.length * 2,
      bulkSeconds: complete ? (Math.max(...bulkArrivals.map((a) => a.firstAt)) - bulkStart) / 1000 : null,
      stages,
    };
  }

  if (spec.noisy && noisyData && slow) {
    const { events, perSecond, idleSeconds, windowSeconds } = spec.noisy;
    log(`noisy neighbour: idle ${idleSeconds} s of ${perSecond} events/s`);
    const quiet = fast.arrivals('/quiet');
    const idleIds = await steadyEvents(noisyData.quiet, 1000 / perSecond, idleSeconds);
    await waitFor(() => idleIds.every((id) => quiet.has(id)), LATE_MS);
    log(`noisy neighbour: ${events} events for the slow receiver (${spec.noisy.delayMs} ms an answer), the quiet one going on for ${windowSeconds} s`);
    slow.resetPeaks();
    const slowIds = noisyData.slow.writeEvents(events, 50, 4);
    const duringIds = await steadyEvents(noisyData.quiet, 1000 / perSecond, windowSeconds);
    await waitFor(() => duringIds.every((id) => quiet.has(id)), LATE_MS);
    const slowWritten = new Set(await slowIds);
    const peaks = slow.peaks();
    result.noisy = {
      idle: latencies(quiet, idleIds),
      during: latencies(quiet, duringIds),
      slowArrived: [...slow.arrivals('/slow').keys()].filter((id) => slowWritten.has(id)).length,
      slowPeakConnections: peaks.connections,
      slowPeakRequests: peaks.requests,
    };
  }

  if (spec.wide && wideData && wideSlow) {
    const { events, perSecond, idleSeconds, windowSeconds, subscriptions, delayMs } = spec.wide;
    // The set-up's template events go to the slow receivers too: they are let out first (not measured).
    const setupIds = await wideData.many.eventIdsAfter(0n);
    await waitFor(() => widePaths.every((p) => setupIds.every((id) => wideSlow.arrivals(p).has(id))), 300_000);
    log(`wide workspace: idle ${idleSeconds} s of ${perSecond} events/s`);
    const quiet = fast.arrivals('/wide-quiet');
    const idleIds = await steadyEvents(wideData.quiet, 1000 / perSecond, idleSeconds);
    await waitFor(() => idleIds.every((id) => quiet.has(id)), LATE_MS);
    log(`wide workspace: ${events} events to ${subscriptions} subscriptions whose receivers answer in ${delayMs} ms, the quiet one going on for ${windowSeconds} s`);
    wideSlow.resetPeaks();
    const slowIds = wideData.many.writeEvents(events, 50, 4);
    const duringIds = await steadyEvents(wideData.quiet, 1000 / perSecond, windowSeconds);
    await waitFor(() => duringIds.every((id) => quiet.has(id)), LATE_MS);
    const written = new Set(await slowIds);
    const peaks = wideSlow.peaks();
    result.wide = {
      idle: latencies(quiet, idleIds),
      during: latencies(quiet, duringIds),
      slowArrived: widePaths.reduce((n, p) => n + [...wideSlow.arrivals(p).keys()].filter((id) => written.has(id)).length, 0),
      slowPeakConnections: peaks.connections,
      slowPeakRequests: peaks.requests,
    };
  }

  await command(child, { cmd: 'stop' }, 60_000).catch((err) => log(`stopping the worker: ${(err as Error).message}`));
  // One database module behind every workspace: closing one closes it.
  await (throughputData[0]?.data ?? burstData?.bulk ?? noisyData?.slow ?? wideData?.many)?.close();
  return result;
}

async function cleanup() {
  if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
  await server?.stop().catch(() => undefined);
  await Promise.all(receivers.map((r) => r.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
}

main()
  .then(async (result) => {
    await cleanup();
    process.send!({ ok: true, result }, () => process.exit(0));
  })
  .catch(async (err) => {
    await cleanup();
    process.send!({ ok: false, error: (err as Error).stack ?? String(err) }, () => process.exit(1));
  });
