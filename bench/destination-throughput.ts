// The throughput case of bench/destinations.ts, by groups of destination types (each group with
// HTTPS beside it, the AWS types with fewer events: moto is slow): per group one workspace with
// two subscriptions to ticket.updated per type, all paused while the group's `events` PATCHes are
// written (each subscription then holds every event), then each type's pair resumed alone, in turn: deliveries/s
// from the resume to the moment both backlogs are empty (every delivery acknowledged by the
// broker, or answered 2xx, and recorded), with the CPU the machine, the service process, the dev
// server and the broker spent meanwhile. Afterwards every (event, subscription) is looked for at
// its place (read back from the broker, or at the HTTPS receiver), duplicates counted.
import type { Api } from './npm-start.ts';
import { attemptStats, eventsSeen, pause, resume, stateOf, subscribe, tally, warmUp, type Subscription } from './destination-subscriptions.ts';
import { newTarget, type TargetType } from './destination-targets.ts';
import type { PhaseService } from './destination-service.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ThroughputRow {
  type: TargetType;
  deliveries: number;
  expected: number;
  /** Resume → both backlogs empty. */
  seconds: number | null;
  perSecond: number | null;
  /** CPU per delivery, ms. */
  machineMs: number;
  serviceMs: number;
  devServerMs: number;
  brokerMs: number | null;
  benchMs: number;
  /** The cores' idle share over the drain. */
  idleShare: number;
  missing: number;
  duplicates: number;
  /** Attempts made, of which failed (both subscriptions, the Test action's included), and the attempts' (broker calls') p50 / p95 ms. */
  attempts: number;
  failed: number;
  attemptP50: number | null;
  attemptP95: number | null;
}

export interface ThroughputGroup {
  name: string;
  types: TargetType[];
  events: number;
}

export interface ThroughputResult {
  groups: GroupResult[];
}

export interface GroupResult {
  name: string;
  /** Events written (each PATCH that succeeded). */
  events: number;
  /** Distinct events that reached the subscriptions, all together. */
  distinctEvents: number;
  writeSeconds: number;
  writeFailed: number;
  rows: ThroughputRow[];
}

export interface ThroughputOptions {
  groups: ThroughputGroup[];
  concurrency: number;
  /** How long a pair may take to drain before the phase gives up on it. */
  drainTimeoutMs: number;
  log: (m: string) => void;
}

/** `events` PATCHes, `concurrency` at a time over as many tickets. */
async function writeUpdates(api: Api, ticketIds: string[], events: number): Promise<number> {
  let next = 0;
  let failed = 0;
  await Promise.all(
    ticketIds.map(async (id) => {
      while (next < events) {
        const n = next++;
        const r = await api.call('PATCH', `/tickets/${id}`, { subject: `Throughput ${n}` }).catch(() => ({ status: 0 }));
        if (r.status !== 200) failed += 1;
      }
    }),
  );
  return failed;
}

export async function throughputCase(service: PhaseService, o: ThroughputOptions): Promise<ThroughputResult> {
  const groups: GroupResult[] = [];
  for (const g of o.groups) groups.push(await throughputGroup(service, g, o));
  return { groups };
}

async function throughputGroup(service: PhaseService, g: ThroughputGroup, o: ThroughputOptions): Promise<GroupResult> {
  const ws = await service.workspace(g.name, g.types.length * 2, o.concurrency);
  const { api } = ws;
  const log = (m: string) => o.log(`throughput ${g.name}: ${m}`);
  log(`two subscriptions each for ${g.types.join(', ')}`);
  const pairs: { type: TargetType; subs: Subscription[] }[] = [];
  for (const type of g.types) {
    const subs: Subscription[] = [];
    for (let n = 0; n < 2; n++) subs.push(await subscribe(ws.keyFor(pairs.length * 2 + n), await newTarget(type, `${g.name}-${n}`, service.receiver, service.brokers)));
    pairs.push({ type, subs });
  }
  const all = pairs.flatMap((p) => p.subs);
  log('the Test action on each, then all paused');
  const tests = await warmUp(api, all);
  await Promise.all(all.map((s) => pause(api, s)));

  const ticketIds = ws.ticketIds;
  log(`writing ${g.events} ticket.updated events (PATCH, ${ticketIds.length} at a time)`);
  const writeStart = Date.now();
  const writeFailed = await writeUpdates(api, ticketIds, g.events);
  const writeSeconds = (Date.now() - writeStart) / 1000;
  // Each PATCH that succeeded wrote one ticket.updated event.
  const written = g.events - writeFailed;
  log(`${written} events in ${writeSeconds.toFixed(1)} s (${writeFailed} PATCHes failed); waiting for every subscription to hold them`);
  const deadline = Date.now() + 300_000;
  for (;;) {
    const states = await Promise.all(all.map((s) => stateOf(api, s)));
    if (states.every((st) => st.backlog.pending >= written)) break;
    if (Date.now() > deadline) throw new Error(`the subscriptions hold ${states.map((st) => st.backlog.pending).join(', ')} of ${written} events after 300 s`);
    await sleep(500);
  }

  const rows: ThroughputRow[] = [];
  for (const { type, subs } of pairs) {
    const expected = written * subs.length;
    log(`resuming the ${type} pair (${expected} deliveries)`);
    const cpu0 = service.cpu();
    const t0 = Date.now();
    await Promise.all(subs.map((s) => resume(api, s)));
    let t1: number | null = null;
    const until = t0 + o.drainTimeoutMs;
    while (Date.now() < until) {
      const states = await Promise.all(subs.map((s) => stateOf(api, s)));
      if (states.every((st) => st.backlog.pending === 0 && st.backlog.inFlight === 0)) {
        t1 = Date.now();
        break;
      }
      await sleep(100);
    }
    const cpu1 = service.cpu();
    const seconds = t1 === null ? null : (t1 - t0) / 1000;
    log(`${type} ${t1 === null ? `not drained within ${o.drainTimeoutMs / 1000} s` : `drained in ${seconds!.toFixed(1)} s, ${(expected / seconds!).toFixed(0)} deliveries/s`}; reading back`);
    const counts = await readBack(subs, tests, written);
    const stats = await Promise.all(subs.map((s) => attemptStats(api, s)));
    const per = (a: number, b: number) => (b - a) / Math.max(1, counts.arrived);
    rows.push({
      type,
      deliveries: counts.arrived,
      expected,
      seconds,
      perSecond: seconds === null ? null : expected / seconds,
      machineMs: per(cpu0.machine.busyMs, cpu1.machine.busyMs),
      serviceMs: per(cpu0.service, cpu1.service),
      devServerMs: per(cpu0.devServer, cpu1.devServer),
      brokerMs: type === 'https' ? null : per(cpu0.brokers[type] ?? 0, cpu1.brokers[type] ?? 0),
      benchMs: per(cpu0.bench, cpu1.bench),
      idleShare: (cpu1.machine.idleMs - cpu0.machine.idleMs) / Math.max(1, cpu1.machine.idleMs - cpu0.machine.idleMs + cpu1.machine.busyMs - cpu0.machine.busyMs),
      missing: counts.missing,
      duplicates: counts.duplicates,
      attempts: stats.reduce((s, x) => s + x.attempts, 0),
      failed: stats.reduce((s, x) => s + x.failed, 0),
      // The first subscription's: a percentile of two is not a sum of them.
      attemptP50: stats[0].p50,
      attemptP95: stats[0].p95,
    });
    // Each pair drains alone: the next one starts on a quiet machine.
    await Promise.all(subs.map((s) => s.target.close().catch(() => undefined)));
  }
  // Every subscription got the same events: as many as were written, and none another did not.
  const distinct = eventsSeen(all, tests).length;
  return { name: g.name, events: written, distinctEvents: distinct, writeSeconds, writeFailed, rows };
}

/** Reads each subscription's place until it has `written` events (the Test action's aside) or nothing more came for 15 s. */
async function readBack(subs: Subscription[], tests: Set<string>, written: number) {
  const ids = (s: Subscription) => eventsSeen([s], tests).map((e) => e.id);
  const count = () => subs.reduce((n, s) => n + ids(s).length, 0);
  let last = -1;
  let lastChange = Date.now();
  while (count() < written * subs.length && Date.now() - lastChange < 15_000) {
    await Promise.all(subs.map((s) => s.target.poll().catch(() => undefined)));
    if (count() !== last) {
      last = count();
      lastChange = Date.now();
    }
    await sleep(200);
  }
  const t = subs.map((s) => tally(s.target, ids(s), written));
  return { arrived: t.reduce((n, x) => n + x.arrived, 0), missing: t.reduce((n, x) => n + x.missing, 0), duplicates: t.reduce((n, x) => n + x.duplicates, 0) };
}
