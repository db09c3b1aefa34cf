// `npm run chaos [-- --events 5000 --rate 20 --concurrency 32 --drain-minutes 30 --answer-ms 50 --max-in-flight 4 --keep]`
// The native production topology (npm run cluster) under load while its processes die:
// 1. The cluster up, its api and worker processes with loopback webhook targets allowed and the
//    test CA trusted (restarted if they run without); a fresh workspace, an API key, and two
//    subscriptions (POST /webhooks) on local HTTPS receivers, a third, strictly ordered, and a fourth
//    whose destination is a NATS JetStream stream (a broker of its own, scripts/chaos/broker.ts).
// 2. `--events` tickets created through both api instances (scripts/chaos/load.ts) while each
//    worker, each api instance, the Temporal server and Redis are SIGKILLed and PostgreSQL shut
//    down immediately, each started again (scripts/chaos/monkey.ts).
// 3. The outbox and Temporal drained (progress printed), then checked: every (event, subscribed
//    subscription) received at least once, duplicates by webhook-id, no receiver ever holding more
//    requests at once than its subscription's maxInFlight (answers take --answer-ms, so batches are
//    in flight when a worker dies), one ticket per Idempotency-Key in the database, no 5xx outside
//    a kill window; the strict receiver got every event's first arrival in event order, one at a
//    time. The last line sums it up; exit 1 on any failure.
import { chaosAppEnv } from './env.ts'; // first: it sets the environment src/config.ts reads
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { startMissing } from '../cluster/control.ts';
import { services, type Service } from '../cluster/services.ts';
import { appProcesses, nativePort } from '../cluster/topology.ts';
import { startBenchReceivers, type BenchReceiver } from '../../bench/webhook-receivers.ts';
import { KillWindows } from './kill-windows.ts';
import { runLoad, subjectOf } from './load.ts';
import { runMonkey } from './monkey.ts';
import { chaosCa } from './tls.ts';
import { startBrokerReceiver } from './broker.ts';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '5000' },
    rate: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '32' },
    'drain-minutes': { type: 'string', default: '30' },
    // Receivers answer after this long, so that batches are in flight when a worker is killed.
    'answer-ms': { type: 'string', default: '50' },
    // Each subscription's maxInFlight: the receiver never holds more at once, kills or not.
    'max-in-flight': { type: 'string', default: '4' },
    keep: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(opts.events);
const RATE = Number(opts.rate);
const DRAIN_MS = Number(opts['drain-minutes']) * 60_000;

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const apps = services.filter((s) => appProcesses.some((p) => p.name === s.name));

/** True when the process group's leader was started with every variable of `env` (Linux /proc). */
function runsWith(s: Service, env: Record<string, string>): boolean {
  const pid = s.pid();
  if (pid === undefined) return false;
  try {
    const environ = new Set(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0'));
    return Object.entries(env).every(([k, v]) => environ.has(`${k}=${v}`));
  } catch {
    return false;
  }
}

// 1. The cluster, with the apps able to reach the receivers.
const { tls, remade } = chaosCa();
for (const s of apps) {
  if (s.pid() !== undefined && (remade || !runsWith(s, chaosAppEnv()))) {
    log(`restarting ${s.name}: it does not allow the receivers' loopback addresses or trust their CA`);
    await s.stop();
  }
}
await startMissing(log);

import { createChaosWorkspace, workspaceEvents, drainState, ticketsPerKey, closeDatabase } from './workspace.ts';
const ws = await createChaosWorkspace();
const origins = appProcesses.filter((p) => p.publishedPort !== undefined).map((p) => `http://127.0.0.1:${nativePort(p.publishedPort!)}`);

const MAX_IN_FLIGHT = Number(opts['max-in-flight']);
const receivers: BenchReceiver[] = await startBenchReceivers(2, tls, Number(opts['answer-ms']), MAX_IN_FLIGHT);
// A strictly ordered subscription among the others: one request at a time, every event in event order.
const [strictReceiver] = await startBenchReceivers(1, tls, Number(opts['answer-ms']), 1);
// A broker destination beside them: what reaches the stream counts as received.
const brokerReceiver = await startBrokerReceiver();
type Receiving = Pick<BenchReceiver, 'origin' | 'arrivals'> & { destination?: Record<string, unknown> };
const subscriptions: { receiver: Receiving; events: string[]; strict?: boolean }[] = [
  { receiver: receivers[0], events: ['ticket.created', 'ticket.updated'] },
  { receiver: receivers[1], events: ['ticket.created'] },
  { receiver: strictReceiver, events: ['ticket.created', 'ticket.updated'], strict: true },
  { receiver: brokerReceiver, events: ['ticket.created', 'ticket.updated'] },
];
for (const [i, sub] of subscriptions.entries()) {
  const res = await fetch(`${origins[i % origins.length]}/public/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      ...(sub.receiver.destination ? { destination: sub.receiver.destination } : { url: `${sub.receiver.origin}/chaos` }),
      events: sub.events,
      description: `chaos receiver ${i + 1}${sub.strict ? ' (strict)' : ''}`,
      ...(sub.strict ? { ordering: 'strict' } : { maxInFlight: MAX_IN_FLIGHT }),
    }),
  });
  if (res.status !== 201) throw new Error(`creating subscription ${i + 1} answered ${res.status}: ${await res.text()}`);
}
log(`workspace ${ws.workspaceId}; receivers ${receivers.map((r) => r.origin).join(', ')}; ${EVENTS} tickets at ${RATE}/s through ${origins.join(' and ')}`);

// 2. Load and kills at once; the kills go on in rounds while the load runs.
const windows = new KillWindows();
const targets = services.filter((s) => s.name !== 'temporal-ui');
let loading = true;
const runId = crypto.randomBytes(3).toString('hex');
const load = runLoad({ ...ws, origins, events: EVENTS, rate: RATE, concurrency: Number(opts.concurrency), runId, windows, log }).finally(() => (loading = false));
load.catch(() => undefined); // awaited below, after the kills
const kills = await runMonkey({ targets, windows, another: () => loading, pauseSeconds: [3, 15], log });
const report = await load;
log(`load done: ${report.tickets.size} keys answered, ${report.requests} requests, ${report.retries} retries, ${report.replays} replays on purpose, ${report.errorsDuringKills} errors during ${kills} kills`);

// 3. Drain: every event of the workspace to every subscription whose types include it.
const failures = [...report.failures];
const drainDeadline = Date.now() + DRAIN_MS;
let events: { id: string; type: string }[] = [];
const expectedOf = () => subscriptions.reduce((n, s) => n + events.filter((e) => s.events.includes(e.type)).length, 0);
const receivedOf = () => subscriptions.reduce((n, s) => n + events.filter((e) => s.events.includes(e.type) && s.receiver.arrivals.has(e.id)).length, 0);
for (let lastLog = 0; ; ) {
  events = await workspaceEvents(ws.workspaceId);
  await brokerReceiver.refresh();
  const [expected, received] = [expectedOf(), receivedOf()];
  if (received === expected) break;
  if (Date.now() > drainDeadline) break;
  if (Date.now() - lastLog > 15_000) {
    lastLog = Date.now();
    const state = await drainState(ws.workspaceId);
    log(`drain: ${received}/${expected} deliveries received; ${state.unrelayed} events not yet relayed; deliveries ${JSON.stringify(state.byStatus)}`);
  }
  await sleep(1_000);
}
// Late duplicates (a retry racing the answer it never saw) arrive within seconds.
await sleep(5_000);
await brokerReceiver.refresh();

const expected = expectedOf();
const received = receivedOf();
const lost = expected - received;
if (lost > 0) failures.push(`${lost} deliveries not received within ${opts['drain-minutes']} min`);
let duplicates = 0;
const eventIds = new Set(events.map((e) => e.id));
for (const sub of subscriptions) {
  for (const [id, arrival] of sub.receiver.arrivals) {
    duplicates += arrival.count - 1;
    if (!eventIds.has(id)) failures.push(`${sub.receiver.origin} received webhook-id ${id}, not an event of the workspace`);
  }
}
// The strict receiver: each event's first arrival in event order (a later one arrives only after
// every earlier one arrived), and never two requests at once.
const firstArrivals = [...strictReceiver.arrivals.entries()].sort((a, b) => a[1].firstAt - b[1].firstAt).map(([id]) => id);
const inOrder = events.filter((e) => subscriptions[2].events.includes(e.type)).map((e) => e.id);
const outOfOrder = firstArrivals.findIndex((id, i) => id !== inOrder[i]);
if (outOfOrder >= 0) failures.push(`the strict receiver's arrival ${outOfOrder + 1} was ${firstArrivals[outOfOrder]}, event order says ${inOrder[outOfOrder]}`);
if (strictReceiver.maxConcurrent() > 1) failures.push(`the strict receiver held ${strictReceiver.maxConcurrent()} requests at once`);
const mostAtOnce = Math.max(...receivers.map((r) => r.maxConcurrent()));
for (const r of receivers) {
  if (r.maxConcurrent() > MAX_IN_FLIGHT) {
    const when = [...new Set(r.overAt().map((o) => new Date(o.at).toISOString().slice(11, 19)))];
    for (const o of r.overAt().slice(0, 5)) log(`${r.origin} at ${new Date(o.at).toISOString().slice(11, 23)} held ${o.open.join(' ')}`);
    failures.push(`${r.origin} held ${r.maxConcurrent()} requests at once, over its subscription's maxInFlight ${MAX_IN_FLIGHT} (at ${when.slice(0, 10).join(', ')}${when.length > 10 ? ', …' : ''}; the kills are logged above)`);
  }
}
const perKey = await ticketsPerKey(ws.workspaceId);
for (const subject of perKey.twice) failures.push(`more than one ticket for one Idempotency-Key: "${subject}"`);
const missingKeys = [...report.tickets.keys()].filter((key) => !perKey.subjects.has(subjectOf(key)));
if (missingKeys.length) failures.push(`${missingKeys.length} answered creations have no ticket, e.g. ${missingKeys[0]}`);
const created = events.filter((e) => e.type === 'ticket.created').length;
if (created !== perKey.tickets) failures.push(`${perKey.tickets} tickets but ${created} ticket.created events`);
if (report.tickets.size !== EVENTS) failures.push(`${EVENTS - report.tickets.size} tickets never got a 201`);

await Promise.all([...receivers, strictReceiver, brokerReceiver].map((r) => r.close()));
await closeDatabase();
if (!opts.keep) {
  // They allow loopback targets: not a production setting. `npm run cluster -- up` starts them as in production.
  for (const s of apps) await s.stop();
  log('stopped the api and worker processes (they ran with chaos settings); `npm run cluster -- up` starts them again');
}
for (const f of failures.slice(0, 20)) console.log(`FAIL ${f}`);
const toBroker = brokerReceiver.arrivals.size;
console.log(`chaos: ${events.length} events, ${expected} deliveries expected (${toBroker} events reached the NATS destination), ${received} received, ${lost} lost, ${duplicates} duplicates (all with the same webhook-id), at most ${mostAtOnce} at once per receiver (bound ${MAX_IN_FLIGHT}); the strict receiver: ${firstArrivals.length} events, ${outOfOrder >= 0 ? `out of order at ${outOfOrder + 1}` : 'all in event order'}, at most ${strictReceiver.maxConcurrent()} at once`);
process.exit(failures.length ? 1 : 0);
