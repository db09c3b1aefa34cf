// The outage case of bench/destinations.ts: one workspace with two subscriptions on a broker that
// will stop answering (`frozen`: its processes get SIGSTOP, so connections stay open and nothing
// answers), one on the HTTPS receiver and one on another broker (`other`), all to ticket.updated.
// A ticket is updated every `everyMs`: `idleSeconds` first, then `seconds` with the broker frozen,
// then it is thawed. Measured: the other subscriptions' event-to-arrival (occurredAt → arrival at
// the receiver, or the read at the broker, every `pollMs`) idle and during the outage (the
// isolation rule: p95 during within 2 × idle p95), and the frozen broker's subscriptions: whether
// the engine paused them (20 failures in a row), how many of the events reached them once it was
// back, and how long after the thaw the last one did. A subscription the engine paused is resumed
// by the benchmark at the thaw and whenever it is found paused again, as an operator answers the
// notice; the report says so.
import type { BrokerType } from '../src/webhooks/message/destinations/settings.ts';
import { pctsWithMissing, type Pcts } from './percentile.ts';
import { steadyPatches, type Api } from './npm-start.ts';
import { attemptStats, eventsSeen, resume, stateOf, subscribe, tally, warmUp, type Subscription } from './destination-subscriptions.ts';
import { newTarget, pollLoop, type TargetType } from './destination-targets.ts';
import type { PhaseService } from './destination-service.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface OutageOptions {
  frozen: BrokerType;
  other: BrokerType;
  seconds: number;
  idleSeconds: number;
  everyMs: number;
  drainSeconds: number;
  pollMs: number;
  freeze(): Promise<void>;
  thaw(): void;
  log: (m: string) => void;
}

export interface OtherResult {
  type: TargetType;
  idle: Pcts;
  during: Pcts;
}

export interface FrozenResult {
  expected: number;
  arrived: number;
  missing: number;
  duplicates: number;
  /** Seconds from the freeze until the engine paused it (20 failures in a row); null: never paused. */
  pausedAfter: number | null;
  /** How many times the benchmark resumed it. */
  resumes: number;
  /** The most deliveries it had waiting at once (pending and held, GET /webhooks/{id}), sampled every second. */
  peakWaiting: number;
  /** Seconds from the thaw until its last event was read back (below 0: nothing came after the thaw). */
  lastAfter: number;
  attempts: number;
  failed: number;
}

export interface OutageResult {
  frozen: BrokerType;
  other: BrokerType;
  events: { idle: number; during: number; failed: number };
  others: OtherResult[];
  frozenSubs: FrozenResult[];
  readErrors: number;
}

export async function outageCase(service: PhaseService, o: OutageOptions): Promise<OutageResult> {
  const ws = await service.workspace('outage', 4, 1);
  const { api } = ws;
  const make = async (type: TargetType, name: string, n: number) => subscribe(ws.keyFor(n), await newTarget(type, `outage-${name}`, service.receiver, service.brokers));
  const frozen = [await make(o.frozen, 'frozen-1', 0), await make(o.frozen, 'frozen-2', 1)];
  const others = [await make('https', 'https', 2), await make(o.other, 'other', 3)];
  const all = [...frozen, ...others];
  o.log(`outage: the Test action on ${all.length} subscriptions (${o.frozen} ×2, https, ${o.other})`);
  const tests = await warmUp(api, all);
  /** How many events (the Test action's aside) `s` has. */
  const has = (s: Subscription) => eventsSeen([s], tests).length;
  const loops = all.map((s) => pollLoop(s.target, o.pollMs));
  const ticket = ws.ticketIds[0];
  let counter = 0;
  const subject = () => `Outage ${counter++}`;

  o.log(`outage: idle, a ticket updated every ${o.everyMs} ms for ${o.idleSeconds} s`);
  const idle = await steadyPatches(api, ticket, o.everyMs, o.idleSeconds, subject);
  // Each PATCH that succeeded wrote one ticket.updated event.
  const idleOk = idle.sent - idle.failed;
  await waitFor(() => all.every((s) => has(s) >= idleOk), 60_000);

  o.log(`outage: ${o.frozen} frozen for ${o.seconds} s while the updates go on`);
  const watch = watchFrozen(api, frozen);
  const freezeAt = Date.now();
  await o.freeze();
  let during;
  try {
    during = await steadyPatches(api, ticket, o.everyMs, o.seconds, subject);
  } finally {
    o.thaw();
  }
  const thawAt = Date.now();
  watch.thawed();
  o.log(`outage: ${o.frozen} thawed; waiting up to ${o.drainSeconds} s for its subscriptions' backlog`);
  const duringOk = during.sent - during.failed;
  const expected = idleOk + duringOk;
  // Done when every event is there, or when nothing waits any more (backlogs empty, receiving)
  // and nothing came for 10 s: what is missing then is not coming.
  let lastCount = 0;
  let lastChange = Date.now();
  let settled = false;
  const settle = setInterval(() => {
    void Promise.all(frozen.map((s) => stateOf(api, s))).then(
      (states) => (settled = states.every((st) => st.condition === 'receiving' && st.backlog.pending === 0 && st.backlog.inFlight === 0)),
      () => undefined,
    );
  }, 2000);
  const drained = await waitFor(() => {
    const count = frozen.reduce((n, s) => n + has(s), 0);
    if (count !== lastCount) [lastCount, lastChange] = [count, Date.now()];
    return frozen.every((s) => has(s) >= expected) || (settled && Date.now() - lastChange > 10_000);
  }, o.drainSeconds * 1000).finally(() => clearInterval(settle));
  // The others' events of the outage may arrive after it (that is what the rule measures): up to 120 s more.
  await waitFor(() => others.every((s) => has(s) >= expected), 120_000);
  const watched = await watch.stop();
  await Promise.all(loops.map((l) => l.stop()));
  o.log(`outage: ${drained && frozen.every((s) => has(s) >= expected) ? 'everything arrived' : drained ? 'backlogs empty, events missing' : 'not drained'}; paused after ${watched.map((w) => (w.pausedAt === null ? 'never' : `${((w.pausedAt - freezeAt) / 1000).toFixed(0)} s`)).join(', ')}`);

  const events = eventsSeen(all, tests);
  const ids = events.map((e) => e.id);
  const within = (from: number, to: number) => events.filter((e) => e.occurredAt >= from && e.occurredAt <= to).map((e) => e.id);
  /** A phase's event-to-arrival at `s`: of its `ok` events, those that never arrived count as infinitely late. */
  const latencies = (s: Subscription, phaseIds: string[], ok: number) => {
    const got = phaseIds.map((id) => s.target.arrivals.get(id)).filter((a) => a !== undefined);
    return pctsWithMissing(got.map((a) => a.firstAt - a.occurredAt), Math.max(0, ok - got.length));
  };
  const idleWindow = within(idle.from, idle.to);
  const duringWindow = within(during.from, during.to);
  const frozenSubs = await Promise.all(
    frozen.map(async (s, i): Promise<FrozenResult> => {
      const t = tally(s.target, ids, expected);
      const last = Math.max(...ids.map((id) => s.target.arrivals.get(id)?.firstAt ?? -Infinity));
      const stats = await attemptStats(api, s);
      return {
        expected,
        ...t,
        pausedAfter: watched[i].pausedAt === null ? null : (watched[i].pausedAt - freezeAt) / 1000,
        resumes: watched[i].resumes,
        peakWaiting: watched[i].peakWaiting,
        lastAfter: (last - thawAt) / 1000,
        attempts: stats.attempts,
        failed: stats.failed,
      };
    }),
  );
  return {
    frozen: o.frozen,
    other: o.other,
    events: { idle: idleOk, during: duringOk, failed: idle.failed + during.failed },
    others: others.map((s) => ({ type: s.target.type, idle: latencies(s, idleWindow, idleOk), during: latencies(s, duringWindow, duringOk) })),
    frozenSubs,
    readErrors: loops.reduce((s, l) => s + l.errors(), 0),
  };
}

async function waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await sleep(200);
  }
  return true;
}

/**
 * Every second, the frozen broker's subscriptions' condition and backlog: when the engine paused
 * each, the most it had waiting; once thawed, a paused one is resumed (the operator's answer to
 * the notice).
 */
function watchFrozen(api: Api, subs: Subscription[]) {
  const seen = subs.map(() => ({ pausedAt: null as number | null, resumes: 0, peakWaiting: 0 }));
  let thawed = false;
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(
        subs.map(async (s, i) => {
          const st = await stateOf(api, s).catch(() => undefined);
          if (!st) return;
          seen[i].peakWaiting = Math.max(seen[i].peakWaiting, st.backlog.pending + st.backlog.inFlight);
          if (st.condition !== 'paused') return;
          seen[i].pausedAt ??= Date.now();
          if (thawed) {
            await resume(api, s).catch(() => undefined);
            seen[i].resumes += 1;
          }
        }),
      );
      await sleep(1000);
    }
  })();
  return {
    thawed: () => void (thawed = true),
    async stop() {
      running = false;
      await loop;
      return seen;
    },
  };
}
