// `npm run bench:webhooks`: webhook delivery throughput and latency on this machine.
//
//   npm run bench:webhooks [-- --events 10000 --subscriptions 2 --ceiling 2000 --starters 32
//                             --latency-seconds 30 --cpu-prof DIR --target dev|cluster]
//
// --target cluster runs on the native production topology (npm run cluster, bench/webhook-cluster.ts):
// its PostgreSQL and Temporal server instead of a dev server, and a second fan-out with two
// worker processes; the report goes to bench/results/webhooks-cluster-latest.md.
//
// 1. A Temporal dev server (src/temporal/dev-server.ts: same binary and flags, SQLite file in a
//    temp dir) and PostgreSQL (DATABASE_URL, else a throwaway cluster).
// 2. Bare ceiling: empty workflows (workflows/bench/) started and awaited by N concurrent
//    starters in the worker process: workflows/s.
// 3. Fan-out: `--subscriptions` subscriptions on local HTTPS receivers (own CA), `--events`
//    ticket.created events written through writeEvent; the real relay and worker (one child
//    process, as `npm start`) deliver them. Deliveries/s from the first event's commit to the last
//    2xx; every (event, subscription) checked at the receivers, duplicates counted.
// 3. Latency: tickets created through the ticket service at half the ceiling (deliveries/s), for
//    `--latency-seconds`; occurredAt → first arrival at the receiver, p50/p99.
// A full run writes bench/results/webhooks-latest.md.
//
// With --cases (throughput by subscriptions per event, burst, noisy neighbour; against a
// baseline commit with --baseline) it runs bench/webhook-cases.ts instead: see there.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { ThrowawayPostgres } from '../scripts/throwaway-postgres.ts';
import { benchDatabase } from './bench-database.ts';
import { freePort } from '../scripts/free-port.ts';
import { startBenchReceivers, type BenchReceiver } from './webhook-receivers.ts';
import type { CeilingReport, WorkerCommand } from './webhook-worker.ts';
import { createTestCa } from '../test/webhooks/receiver.ts';
import type { DevServer } from '../src/temporal/dev-server.ts';
import { databaseUrl as clusterDatabaseUrl, nativeEndpoints, versions } from '../scripts/cluster/topology.ts';
import { clusterSecretKeys } from '../scripts/cluster/secret-keys.ts';
import { newSecretKeys } from '../src/webhooks/message/secret-box.ts';
import { runBench, writeResults } from './lifecycle.ts';
import { percentile } from './percentile.ts';
import { devServerPid } from './webhook-measure.ts';
import { stageCells, stageNames, stagesWith, type StageRow } from './embedded-stages.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** `--cases …`: the command line is bench/webhook-cases.ts's. */
const CASES = process.argv.some((a) => a === '--cases' || a.startsWith('--cases='));
const { values: opts } = parseArgs({
  args: CASES ? [] : process.argv.slice(2),
  options: {
    events: { type: 'string', default: '10000' },
    subscriptions: { type: 'string', default: '2' },
    ceiling: { type: 'string', default: '2000' },
    starters: { type: 'string', default: '32' },
    'latency-seconds': { type: 'string', default: '30' },
    'cpu-prof': { type: 'string' },
    target: { type: 'string', default: 'dev' },
  },
});
const EVENTS = Number(opts.events);
const SUBSCRIPTIONS = Number(opts.subscriptions);
const CEILING_WORKFLOWS = Number(opts.ceiling);
const STARTERS = Number(opts.starters);
const LATENCY_SECONDS = Number(opts['latency-seconds']);
/** Tunable, but these are the runs bench/results/ reports. */
const isFullRun = EVENTS === 10_000;
if (opts.target !== 'dev' && opts.target !== 'cluster') throw new Error('--target is dev or cluster');
const ON_CLUSTER = opts.target === 'cluster';
const RESULTS_FILE = path.join(here, 'results', ON_CLUSTER ? 'webhooks-cluster-latest.md' : 'webhooks-latest.md');
/** What the report calls the Temporal server. */
const SERVER = ON_CLUSTER ? 'Temporal server' : 'dev server';

const tmp = CASES ? '' : fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
let cluster: ThrowawayPostgres | undefined;
let devServer: DevServer | undefined;
let worker: ChildProcess | undefined;
let secondWorker: ChildProcess | undefined;
let restoreCluster: (() => Promise<void>) | undefined;
let receivers: BenchReceiver[] = [];

async function cleanup() {
  for (const w of [worker, secondWorker]) if (w && w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await Promise.all(receivers.map((r) => r.close()));
  await devServer?.stop().catch(() => undefined);
  cluster?.stop();
  cluster = undefined;
  const restore = restoreCluster;
  restoreCluster = undefined;
  await restore?.().catch((err) => console.error(`starting the cluster's app processes again: ${(err as Error).message}`));
  fs.rmSync(tmp, { recursive: true, force: true });
}
const budgetMs = 30 * 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mark = (ok: boolean) => (ok ? '**pass**' : '**FAIL**');

/** Sends one command to the worker process and waits for its answer. */
function command<T = unknown>(child: ChildProcess, message: WorkerCommand, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not answer ${message.cmd} within ${timeoutMs / 1000} s`)), timeoutMs);
    child.once('message', (m: { ok: boolean; error?: string; report?: T }) => {
      clearTimeout(timer);
      if (m.ok) resolve(m.report as T);
      else reject(new Error(`worker failed ${message.cmd}: ${m.error}`));
    });
    child.send(message);
  });
}

/** Peak and current RSS (VmHWM, VmRSS) and CPU time (user + system, ms) of a process, from /proc. */
function procStats(pid: number) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024, cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 };
}

/**
 * CPU time of the whole machine (every process, kernel included) from /proc/stat, in ms of one
 * core: busy, and idle (iowait counted as idle). Over a phase, busy ÷ units of work is what each
 * unit costs the machine, receivers, PostgreSQL and loopback networking included.
 */
function machineCpu() {
  const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = ticks[3] + (ticks[4] ?? 0);
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busyMs: (total - idle) * 10, idleMs: idle * 10 };
}

interface Check {
  expected: number;
  delivered: number;
  missing: number;
  duplicates: number;
  unexpected: number;
}

/** Every expected event at every receiver exactly once? */
function check(eventIds: string[]): Check {
  const wanted = new Set(eventIds);
  let delivered = 0;
  let duplicates = 0;
  let unexpected = 0;
  for (const r of receivers) {
    for (const id of eventIds) {
      const a = r.arrivals.get(id);
      if (!a) continue;
      delivered += 1;
      duplicates += a.count - 1;
    }
    for (const id of r.arrivals.keys()) if (!wanted.has(id) && !phaseBefore.has(id)) unexpected += 1;
  }
  const expected = eventIds.length * receivers.length;
  return { expected, delivered, missing: expected - delivered, duplicates, unexpected };
}
/** Event ids of earlier phases, which are not "unexpected" in a later one. */
const phaseBefore = new Set<string>();

async function waitForArrivals(eventIds: string[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (check(eventIds).missing === 0) return true;
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
}

async function main() {
  const loadBefore = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const database = await benchDatabase(
    log,
    ON_CLUSTER ? { url: clusterDatabaseUrl(nativeEndpoints), note: 'the native cluster\'s, fsync on, shared with its Temporal server' } : undefined,
  );
  cluster = database.cluster;
  const { url: databaseUrl, note: databaseNote, version: pgVersion } = database;

  log(`Receivers: ${SUBSCRIPTIONS} HTTPS servers on loopback :8443 with a throwaway CA`);
  const tls = createTestCa();
  const caFile = path.join(tmp, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca);
  receivers = await startBenchReceivers(SUBSCRIPTIONS, tls);

  // src/config.ts reads these when first imported: every module that leads to it is imported below.
  // Production requires WEBHOOK_SECRET_KEYS: on the cluster its keys (the subscriptions made here are the cluster's), else one new key.
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn', NODE_ENV: 'production', SEED_DEMO: 'false',
    WEBHOOK_SECRET_KEYS: ON_CLUSTER ? clusterSecretKeys() : newSecretKeys(),
  });
  const { setUpWorkspace } = await import('./webhook-data.ts');
  const { startDevServer } = await import('../src/temporal/dev-server.ts');
  log('Setting up: migrations, workspace, API key, subscriptions through the webhook service…');
  const data = await setUpWorkspace(receivers.map((r) => `${r.origin}/webhooks/bench`));

  let temporal: { address: string; namespace: string; pid: number | undefined };
  if (ON_CLUSTER) {
    const { useCluster } = await import('./webhook-cluster.ts');
    const c = await useCluster(log);
    restoreCluster = () => c.restore();
    temporal = { address: c.temporalAddress, namespace: c.namespace, pid: c.temporalPid };
  } else {
    log('Starting the Temporal dev server (SQLite file, as npm start)…');
    const temporalPort = await freePort();
    devServer = await startDevServer({ dbFile: path.join(tmp, 'temporal.sqlite'), port: temporalPort });
    temporal = { address: devServer.address, namespace: devServer.namespace, pid: devServerPid(temporalPort) };
  }
  const temporalPid = temporal.pid;

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    NODE_EXTRA_CA_CERTS: caFile,
  };
  const forkWorker = async () => {
    const forked = fork(path.join(here, 'webhook-worker.ts'), [], { env, execArgv: ['--import', 'tsx', ...(opts['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(opts['cpu-prof'])] : [])], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      forked.once('message', () => resolve());
      forked.once('exit', (code) => reject(new Error(`worker process exited (${code}) before it was ready`)));
    });
    return forked;
  };
  worker = await forkWorker();
  const child = worker;

  // Bare ceiling.
  log(`Bare ceiling: ${fmt(CEILING_WORKFLOWS)} empty workflows, ${STARTERS} starters, plain then eager start…`);
  const ceilingCpu0 = { worker: procStats(child.pid!).cpuMs, temporal: temporalPid ? procStats(temporalPid).cpuMs : NaN, machine: machineCpu() };
  const ceilingPlain = await command<CeilingReport>(child, { cmd: 'ceiling', count: CEILING_WORKFLOWS, starters: STARTERS, eager: false, taskQueue: 'bench-ceiling' }, 600_000);
  const ceilingCpu = {
    worker: (procStats(child.pid!).cpuMs - ceilingCpu0.worker) / (ceilingPlain.completed + STARTERS),
    temporal: temporalPid ? (procStats(temporalPid).cpuMs - ceilingCpu0.temporal) / (ceilingPlain.completed + STARTERS) : NaN,
    machine: (machineCpu().busyMs - ceilingCpu0.machine.busyMs) / (ceilingPlain.completed + STARTERS),
  };
  const ceilingEager = await command<CeilingReport>(child, { cmd: 'ceiling', count: CEILING_WORKFLOWS, starters: STARTERS, eager: true, taskQueue: 'bench-ceiling-eager' }, 600_000);
  // The better of the two is the ceiling the deliveries are judged against.
  const ceilingRate = Math.max(ceilingPlain.completed / ceilingPlain.seconds, ceilingEager.completed / ceilingEager.seconds);
  log(`Ceiling: ${fmt(ceilingPlain.completed / ceilingPlain.seconds)} workflows/s, eager ${fmt(ceilingEager.completed / ceilingEager.seconds)} workflows/s (${ceilingEager.eagerlyStarted} eagerly started)`);

  await command(child, { cmd: 'deliver' }, 120_000);
  const seq0 = await data.lastSeq();
  // The template ticket's own event (written at setup) goes out first; wait for it so the phase starts clean.
  const setupEvents = await data.eventIdsAfter(0n);
  if (!(await waitForArrivals(setupEvents, 60_000))) throw new Error('the set-up event was not delivered within 60 s');
  for (const id of setupEvents) phaseBefore.add(id);

  // Fan-out throughput.
  const expectedDeliveries = EVENTS * SUBSCRIPTIONS;
  log(`Fan-out: ${fmt(EVENTS)} events × ${SUBSCRIPTIONS} subscriptions = ${fmt(expectedDeliveries)} deliveries…`);
  const cpu0 = procStats(child.pid!).cpuMs;
  const tcpu0 = temporalPid ? procStats(temporalPid).cpuMs : NaN;
  const machine0 = machineCpu();
  const self0 = process.cpuUsage();
  const writeStart = Date.now();
  const eventIds = await data.writeEvents(EVENTS, 50, 4);
  const writeSeconds = (Date.now() - writeStart) / 1000;
  log(`Events written in ${fmt(writeSeconds, 1)} s; waiting for the receivers…`);
  const allArrived = await waitForArrivals(eventIds, Math.max(300_000, (expectedDeliveries / Math.max(1, ceilingRate)) * 5_000));
  const arrivals = receivers.flatMap((r) => eventIds.map((id) => r.arrivals.get(id)).filter((a) => a !== undefined));
  const firstEvent = Math.min(...arrivals.map((a) => a.occurredAt));
  const lastArrival = Math.max(...arrivals.map((a) => a.firstAt));
  const fanoutSeconds = (lastArrival - firstEvent) / 1000;
  const fanoutCpuMs = procStats(child.pid!).cpuMs - cpu0;
  const fanoutTemporalCpuMs = temporalPid ? procStats(temporalPid).cpuMs - tcpu0 : NaN;
  const machine1 = machineCpu();
  const self1 = process.cpuUsage(self0);
  const fanoutSelfMs = (self1.user + self1.system) / 1000;
  const fanoutMachine = { busyMs: machine1.busyMs - machine0.busyMs, idleMs: machine1.idleMs - machine0.idleMs };
  // The attempt is recorded after the 2xx: give the last ones a moment before counting rows.
  await sleep(3_000);
  const fanoutCheck = check(eventIds);
  const fanoutRows = await data.deliveryCounts(seq0);
  const fanoutLatencies = arrivals.map((a) => a.firstAt - a.occurredAt).sort((a, b) => a - b);
  for (const id of eventIds) phaseBefore.add(id);
  const throughput = fanoutCheck.delivered / fanoutSeconds;
  log(`Fan-out: ${fmt(throughput)} deliveries/s over ${fmt(fanoutSeconds, 1)} s; ${fanoutCheck.missing} missing, ${fanoutCheck.duplicates} duplicates`);
  if (!allArrived) log('Fan-out: not every delivery arrived in time');

  // The machine is shared: the ceiling again, to show how far the conditions moved meanwhile.
  const ceilingAfter = await command<CeilingReport>(child, { cmd: 'ceiling', count: CEILING_WORKFLOWS / 2, starters: STARTERS, eager: true, taskQueue: 'bench-ceiling-after' }, 600_000);
  log(`Ceiling after the fan-out: eager ${fmt(ceilingAfter.completed / ceilingAfter.seconds)} workflows/s`);

  // On the cluster: the same fan-out with a second worker process (each runs the worker and a relay, as the topology's two).
  let twoWorkers: { throughput: number; seconds: number; check: Check; cpuMs: number } | undefined;
  if (ON_CLUSTER) {
    log(`Fan-out with two worker processes: ${fmt(EVENTS)} events more…`);
    secondWorker = await forkWorker();
    await command(secondWorker, { cmd: 'deliver' }, 120_000);
    const cpu2 = [procStats(child.pid!).cpuMs, procStats(secondWorker.pid!).cpuMs];
    const ids2 = await data.writeEvents(EVENTS, 50, 4);
    if (!(await waitForArrivals(ids2, Math.max(300_000, (expectedDeliveries / Math.max(1, ceilingRate)) * 5_000)))) log('Fan-out with two: not every delivery arrived in time');
    const arrivals2 = receivers.flatMap((r) => ids2.map((id) => r.arrivals.get(id)).filter((a) => a !== undefined));
    const seconds = (Math.max(...arrivals2.map((a) => a.firstAt)) - Math.min(...arrivals2.map((a) => a.occurredAt))) / 1000;
    await sleep(3_000);
    const check2 = check(ids2);
    for (const id of ids2) phaseBefore.add(id);
    const cpuMs = procStats(child.pid!).cpuMs - cpu2[0] + procStats(secondWorker.pid!).cpuMs - cpu2[1];
    twoWorkers = { throughput: check2.delivered / seconds, seconds, check: check2, cpuMs };
    log(`Fan-out with two: ${fmt(twoWorkers.throughput)} deliveries/s over ${fmt(seconds, 1)} s; ${check2.missing} missing, ${check2.duplicates} duplicates`);
  }

  // Latency at half the ceiling.
  const seq1 = await data.lastSeq();
  const deliveriesPerSecond = ceilingRate / 2;
  const ticketsPerSecond = deliveriesPerSecond / SUBSCRIPTIONS;
  const tickets = Math.round(ticketsPerSecond * LATENCY_SECONDS);
  log(`Latency: ${fmt(tickets)} tickets through the ticket service at ${fmt(ticketsPerSecond, 1)}/s (${fmt(deliveriesPerSecond, 1)} deliveries/s) for ${LATENCY_SECONDS} s…`);
  const latencyStart = performance.now();
  const latencyFrom = Date.now();
  let created = 0;
  let createErrors = 0;
  const inFlight: Promise<unknown>[] = [];
  for (let n = 0; n < tickets; n++) {
    const due = latencyStart + (n / ticketsPerSecond) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(
      data.createTicket(n + 1).then(
        () => void (created += 1),
        () => void (createErrors += 1),
      ),
    );
  }
  await Promise.all(inFlight);
  const achievedTicketsPerSecond = created / ((performance.now() - latencyStart) / 1000);
  const latencyEventIds = await data.eventIdsAfter(seq1);
  const latencyArrived = await waitForArrivals(latencyEventIds, 120_000);
  await sleep(3_000);
  const latencyCheck = check(latencyEventIds);
  const latencyRows = await data.deliveryCounts(seq1);
  const latencies = receivers
    .flatMap((r) => latencyEventIds.map((id) => r.arrivals.get(id)).filter((a) => a !== undefined))
    .map((a) => a.firstAt - a.occurredAt)
    .sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  log(`Latency: p50 ${fmt(p50)} ms, p99 ${fmt(p99)} ms, max ${fmt(latencies.at(-1) ?? NaN)} ms; ${latencyCheck.missing} missing, ${latencyCheck.duplicates} duplicates`);
  // Where the first receiver's latency went (the service's own timestamps); a breakdown, so a failure only logs.
  const stageSql = new pg.Client({ connectionString: databaseUrl });
  const stages = await stageSql
    .connect()
    .then(() => stagesWith(async (text, params) => (await stageSql.query<StageRow>(text, params)).rows, `${receivers[0].origin}/webhooks/bench`, latencyFrom, Date.now(), receivers[0].arrivals))
    .catch((err) => void log(`Latency: could not read the stages: ${err}`))
    .finally(() => stageSql.end().catch(() => undefined));
  if (stages) log(`Latency stages (p50 / p95 ms): ${stageNames.map((n, i) => `${n} ${stageCells(stages)[i]}`).join('; ')}`);
  if (!latencyArrived) log('Latency: not every delivery arrived in time');

  const workerStats = procStats(child.pid!);
  const temporalStats = temporalPid ? procStats(temporalPid) : undefined;
  const loadAfter = execFileSync('uptime', { encoding: 'utf8' }).trim();
  if (secondWorker) await command(secondWorker, { cmd: 'stop' }, 60_000).catch((err) => log(String(err)));
  await command(child, { cmd: 'stop' }, 60_000).catch((err) => log(String(err)));
  // It exits by itself after `stop` (writing its --cpu-prof); cleanup kills it only when it does not.
  if (child.exitCode === null) await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(10_000)]);
  await data.close();
  await cleanup();

  // The report.
  const lines: string[] = [];
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  lines.push(`# Webhook delivery benchmark (${date})`, '');
  lines.push(
    `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB RAM; Node ${process.version}; PostgreSQL ${pgVersion} (${databaseNote}); ${ON_CLUSTER ? `Temporal server ${versions.temporalServer} of the native production topology (\`npm run cluster\`: persistence and visibility on that PostgreSQL)` : 'Temporal dev server (Temporal CLI, SQLite file with WAL and synchronous=OFF, as `npm start`)'}.`,
    `One worker process runs the service's worker (src/worker.ts) and the outbox relay (defaults of src/webhooks/fanout/outbox-relay.ts); receivers and event writers run in the benchmark process. Everything shares the same ${os.availableParallelism()} cores.`,
    `Load before: \`${loadBefore}\``,
    `Load after: \`${loadAfter}\``,
    '',
    '| Measure | Value |',
    '|---|--:|',
    `| Bare ceiling: empty workflows started + completed (${STARTERS} starters, ${fmt(CEILING_WORKFLOWS)} workflows) | ${fmt(ceilingPlain.completed / ceilingPlain.seconds)} workflows/s |`,
  );
  lines.push(`| Bare ceiling: worker process / ${SERVER} CPU per workflow | ${fmt(ceilingCpu.worker, 2)} / ${Number.isNaN(ceilingCpu.temporal) ? 'n/a' : fmt(ceilingCpu.temporal, 2)} ms |`);
  lines.push(`| Bare ceiling with eager start | ${fmt(ceilingEager.completed / ceilingEager.seconds)} workflows/s (${fmt(ceilingEager.eagerlyStarted)} of ${fmt(ceilingEager.completed)} eagerly started) |`);
  lines.push(
    `| Fan-out: events written (writeEvent, 50 per transaction) | ${fmt(EVENTS)} in ${fmt(writeSeconds, 1)} s |`,
    `| Fan-out: deliveries (${fmt(EVENTS)} events × ${SUBSCRIPTIONS} subscriptions), first commit → last 2xx | ${fmt(fanoutCheck.delivered)} in ${fmt(fanoutSeconds, 1)} s |`,
    `| **Fan-out: sustained deliveries/s** | **${fmt(throughput)}** |`,
    `| Fan-out: commit → first attempt at receiver (backlog included), p50 / p99 | ${fmt(percentile(fanoutLatencies, 50))} / ${fmt(percentile(fanoutLatencies, 99))} ms |`,
    `| Fan-out: worker process CPU per delivery | ${fmt(fanoutCpuMs / Math.max(1, fanoutCheck.delivered), 2)} ms |`,
    `| Fan-out: ${SERVER} CPU per delivery | ${Number.isNaN(fanoutTemporalCpuMs) ? 'n/a' : `${fmt(fanoutTemporalCpuMs / Math.max(1, fanoutCheck.delivered), 2)} ms`} |`,
    `| Machine CPU (every process and the kernel) per empty workflow (plain start) / per delivery | ${fmt(ceilingCpu.machine, 2)} / ${fmt(fanoutMachine.busyMs / Math.max(1, fanoutCheck.delivered), 2)} ms |`,
    `| Machine CPU of an empty workflow ÷ of a delivery: the share of the plain ceiling to expect when the cores are the limit | ${fmt((ceilingCpu.machine / (fanoutMachine.busyMs / Math.max(1, fanoutCheck.delivered))) * 100)}% |`,
    `| Fan-out: this benchmark's process (HTTPS receivers, event writers) per delivery; machine CPU per delivery without it | ${fmt(fanoutSelfMs / Math.max(1, fanoutCheck.delivered), 2)} / ${fmt((fanoutMachine.busyMs - fanoutSelfMs) / Math.max(1, fanoutCheck.delivered), 2)} ms |`,
    `| Fan-out: the cores' idle share | ${fmt((fanoutMachine.idleMs / Math.max(1, fanoutMachine.idleMs + fanoutMachine.busyMs)) * 100)}% |`,
    `| CPU (worker + ${SERVER}) of an empty workflow ÷ of a delivery: the share of the ceiling to expect when CPU-bound | ${Number.isNaN(fanoutTemporalCpuMs) ? 'n/a' : `${fmt((ceilingCpu.worker + ceilingCpu.temporal) / ((fanoutCpuMs + fanoutTemporalCpuMs) / Math.max(1, fanoutCheck.delivered)) * 100)}%`} |`,
    `| Bare ceiling again after the fan-out (eager, ${fmt(ceilingAfter.completed)} workflows) | ${fmt(ceilingAfter.completed / ceilingAfter.seconds)} workflows/s |`,
    `| Fan-out: delivery rows by status / attempts recorded / events not relayed | ${JSON.stringify(fanoutRows.byStatus)} / ${fmt(fanoutRows.attempts)} / ${fanoutRows.unrelayed} |`,
    `| Latency phase: tickets created (ticket service) | ${fmt(created)} at ${fmt(achievedTicketsPerSecond, 1)}/s (${createErrors} errors) → ${fmt(latencyCheck.expected)} deliveries at ${fmt(achievedTicketsPerSecond * SUBSCRIPTIONS, 1)}/s |`,
    `| **Latency: occurredAt → first attempt at receiver, p50 / p99 / max** | **${fmt(p50)} / ${fmt(p99)}** / ${fmt(latencies.at(-1) ?? NaN)} ms |`,
    `| Latency, the first receiver's steps p50 / p95 ms (bench/embedded-stages.ts): ${stageNames.join(', ')} | ${stageCells(stages ?? undefined).join(', ')} |`,
    `| Latency: delivery rows by status / attempts recorded / events not relayed | ${JSON.stringify(latencyRows.byStatus)} / ${fmt(latencyRows.attempts)} / ${latencyRows.unrelayed} |`,
    `| Worker process (worker + relay) peak RSS / RSS at end | ${fmt(workerStats.peakMb)} / ${fmt(workerStats.rssMb)} MB |`,
  );
  if (twoWorkers) {
    lines.push(
      `| Fan-out with two worker processes: ${fmt(EVENTS)} events more, first commit → last 2xx | ${fmt(twoWorkers.check.delivered)} in ${fmt(twoWorkers.seconds, 1)} s |`,
      `| **Fan-out with two worker processes: sustained deliveries/s** | **${fmt(twoWorkers.throughput)}** (${twoWorkers.check.missing} missing, ${twoWorkers.check.duplicates} duplicates) |`,
      `| Fan-out with two: worker processes' CPU per delivery | ${fmt(twoWorkers.cpuMs / Math.max(1, twoWorkers.check.delivered), 2)} ms |`,
    );
  }
  if (temporalStats) lines.push(`| ${SERVER} peak RSS | ${fmt(temporalStats.peakMb)} MB |`);

  // Judged against the best ceiling measured, before or after: a ceiling that other work on the
  // machine held down would flatter the deliveries.
  const bestCeiling = Math.max(ceilingRate, ceilingAfter.completed / ceilingAfter.seconds);
  const share = throughput / bestCeiling;
  const lost = fanoutCheck.missing + latencyCheck.missing;
  const duplicates = fanoutCheck.duplicates + latencyCheck.duplicates;
  const retried = fanoutRows.attempts - fanoutCheck.expected + latencyRows.attempts - latencyCheck.expected;
  lines.push(
    '',
    '| Target | Measured | Result |',
    '|---|---|---|',
    `| Throughput ≥ 85% of the bare ceiling (the best of plain, eager and again after the fan-out) | ${fmt(share * 100)}% (${fmt(throughput)} of ${fmt(bestCeiling)} /s) | ${mark(share >= 0.85)} |`,
    `| Latency p50 ≤ 80 ms | ${fmt(p50)} ms | ${mark(p50 <= 80)} |`,
    `| Latency p99 ≤ 300 ms | ${fmt(p99)} ms | ${mark(p99 <= 300)} |`,
    `| Nothing lost (every event × subscription at its receiver) | ${fmt(lost)} missing of ${fmt(fanoutCheck.expected + latencyCheck.expected)}; ${fanoutCheck.unexpected + latencyCheck.unexpected} unexpected | ${mark(lost === 0)} |`,
    `| No duplicates beyond retries (same webhook-id twice at a receiver) | ${fmt(duplicates)} duplicates, ${fmt(Math.max(0, retried))} retried attempts | ${mark(duplicates <= Math.max(0, retried))} |`,
    '',
  );
  const markdown = lines.join('\n');
  console.log(markdown);
  if (isFullRun) {
    writeResults(RESULTS_FILE, markdown, log);
  }
}

if (CASES) await import('./webhook-cases.ts');
else runBench(main, cleanup, budgetMs);
