// The delivery engine's rules (src/webhooks/README.md, "Invariants"), checked after a seed
// has quiesced, against what the receiver got (every request, when it arrived and when its
// exchange ended), what the worker ran (each batch attempt, zombies included), the database and
// the API. Which subscriptions an event goes to is decided here from the documented rules, not
// by calling the relay's matcher.
import { prisma } from '../../../src/db/db.ts';
import { api } from '../../support/fixtures.ts';
import type { SeedTrace } from './harness.ts';
import { SENDER_TIMEOUT_MS, WORKSPACE_CAP } from './stack.ts';

export interface Violation {
  invariant: string;
  detail: string;
}

const INVARIANTS = {
  quiesces: 'the system quiesces: nothing pending, claimed or unrelayed, no run left, no run needed the sweep',
  reaches: 'every accepted event reaches each matching subscription, or is held, cancelled or disabled by a rule the API shows',
  order: "a strict subscription's receiver sees every event in event order",
  inFlight: 'no receiver holds more than its bound at once (zombie windows measured apart)',
  cap: 'no workspace holds more than its cap at once (zombie windows measured apart)',
  held: 'no row is held on a receiving subscription',
  backlog: 'the backlog GET /webhooks/{id} reports equals the rows',
  webhookId: 'a retried attempt keeps its webhook-id',
  attempts: 'every recorded attempt is a request the receiver got, or a time-out that waited the full time without an answer',
} as const;

const MAX_ATTEMPTS_DEFAULT = 7;
const is2xx = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

export async function checkInvariants(trace: SeedTrace, note: (line: string) => void): Promise<Violation[]> {
  const violations: Violation[] = [...trace.stepViolations];
  const fail = (invariant: string, detail: string) => violations.push({ invariant, detail });
  const subIds = trace.subs.map((s) => s.id);
  const label = (id: string | null) => trace.subs.find((s) => s.id === id)?.plan.label ?? String(id);

  const [subRows, events, deliveries, attempts] = await Promise.all([
    prisma.webhookSubscription.findMany({ where: { id: { in: subIds } } }),
    prisma.event.findMany({ where: { workspaceId: { in: trace.workspaceIds } }, orderBy: { seq: 'asc' } }),
    prisma.delivery.findMany({ where: { subscriptionId: { in: subIds } } }),
    prisma.deliveryAttempt.findMany({ where: { subscriptionId: { in: subIds } }, select: { deliveryId: true, subscriptionId: true, eventId: true, payload: true, attempt: true, trigger: true, httpStatus: true, error: true, durationMs: true } }),
  ]);
  const rowOf = new Map(subRows.map((r) => [r.id, r]));
  const eventById = new Map(events.map((e) => [e.id, e]));
  const deliveryOf = new Map(deliveries.map((d) => [`${d.subscriptionId} ${d.eventId}`, d]));
  const requestsOf = new Map<string, typeof trace.requests>();
  const subOfPath = new Map(trace.subs.map((s) => [s.path, s]));
  for (const r of trace.requests) {
    const key = `${subOfPath.get(r.path)!.id} ${r.headers['webhook-id']}`;
    requestsOf.set(key, [...(requestsOf.get(key) ?? []), r]);
  }
  trace.stats.events = events.length;
  trace.stats.requests = trace.requests.length;
  trace.stats.duplicates = [...requestsOf.values()].reduce((n, rs) => n + rs.length - 1, 0);
  trace.stats.zombies = trace.batches.filter((b) => b.zombie).length;

  // Quiescence.
  if (!trace.quiesced) fail(INVARIANTS.quiesces, 'the system did not quiesce within its budget');
  for (const d of deliveries) {
    if (d.status === 'pending') fail(INVARIANTS.quiesces, `${label(d.subscriptionId)}: delivery of ${d.eventId} still pending (next attempt ${d.nextAttemptAt?.toISOString() ?? 'now'})`);
    // A delete cancels every waiting row, claimed ones too; a run that ends on the delete before
    // its claimed batch starts leaves that claim on them. Inert: no count reads a cancelled row's
    // claim and a deleted subscription takes no re-send (found by seed 17; docs say so).
    // A run that ends on a delete or a disable (a 410 of its previous batch: seeds 17 and 2833 on
    // PostgreSQL) leaves the claim of a batch it never started on the rows that stop cancelled: inert,
    // as the counts skip a cancelled row's claim until a re-send, whose run frees it at its first claim.
    const stopped = rowOf.get(d.subscriptionId);
    const inert = d.status === 'cancelled' && (stopped?.deletedAt != null || stopped?.condition === 'disabled');
    if (d.claim !== null && !inert) fail(INVARIANTS.quiesces, `${label(d.subscriptionId)}: delivery of ${d.eventId} still claimed (${d.claim}, ${d.status})`);
  }
  for (const e of events) if (e.relayedAt === null) fail(INVARIANTS.quiesces, `event ${e.id} (${e.type}) never relayed`);
  for (const id of trace.swept) {
    if (!trace.subs.find((s) => s.id === id)?.resumeDeferred) fail(INVARIANTS.quiesces, `${label(id)}: its due deliveries had no run until the overdue sweep started one`);
  }

  // Reach: each event to each subscription its filters match, unless a rule the API shows stopped it.
  const stoppedAfter = (subId: string, since: number) => trace.subs.find((s) => s.id === subId)!.stopped.some((i) => i.to > since);
  for (const e of events) {
    const since = e.actorId === null ? -Infinity : e.occurredAt.getTime();
    for (const sub of trace.subs) {
      const row = rowOf.get(sub.id)!;
      const d = deliveryOf.get(`${sub.id} ${e.id}`);
      const matches = matchesEvent(e, row, rowOf);
      if (!matches) {
        if (d) fail(INVARIANTS.reaches, `${sub.plan.label} got a delivery of ${e.type} ${e.id} that its filters do not match`);
        continue;
      }
      if (!d) {
        if (!stoppedAfter(sub.id, since)) fail(INVARIANTS.reaches, `${sub.plan.label} has no delivery of ${e.type} ${e.id} (seq ${e.seq}) and was never disabled or deleted meanwhile`);
        continue;
      }
      const requests = requestsOf.get(`${sub.id} ${e.id}`) ?? [];
      if (d.status === 'succeeded' && !requests.some((r) => is2xx(r.status))) fail(INVARIANTS.reaches, `${sub.plan.label}: ${e.id} recorded as succeeded, but the receiver answered no request of it with a 2xx`);
      if (d.status === 'cancelled' && !stoppedAfter(sub.id, since)) fail(INVARIANTS.reaches, `${sub.plan.label}: ${e.id} cancelled, yet the subscription was never disabled or deleted`);
      if (d.status === 'held' && row.condition !== 'paused') fail(INVARIANTS.held, `${sub.plan.label}: ${e.id} held while the subscription is ${row.condition}`);
      if (d.status === 'failed') {
        const fewest = Math.min(...sub.schedules.map((s) => (s === null ? MAX_ATTEMPTS_DEFAULT : s.length + 1)));
        if (d.scheduledAttempts < fewest) fail(INVARIANTS.reaches, `${sub.plan.label}: ${e.id} failed after ${d.scheduledAttempts} attempts; its schedules had at least ${fewest}`);
      }
    }
  }

  // Requests and recorded attempts: the same webhook-id throughout, each attempt a real request.
  for (const r of trace.requests) {
    const sub = subOfPath.get(r.path)!;
    const id = r.headers['webhook-id'];
    let bodyId: unknown;
    try {
      bodyId = (JSON.parse(r.body) as { id?: unknown }).id;
    } catch {
      bodyId = undefined;
    }
    if (bodyId !== id) fail(INVARIANTS.webhookId, `${sub.plan.label}: a request's webhook-id ${id} is not its body's id ${String(bodyId)}`);
    if (!deliveryOf.has(`${sub.id} ${id}`)) fail(INVARIANTS.webhookId, `${sub.plan.label}: a request with webhook-id ${id}, of no delivery to it`);
  }
  const recorded = new Map<string, number>();
  for (const a of attempts) {
    const key = `${a.subscriptionId} ${a.eventId}`;
    // A time-out may end an attempt before its request reached the receiver (a TLS handshake slower
    // than the sender's time-out on a loaded machine: seed 502 on PostgreSQL): not a request, yet a
    // true record, provided it waited the whole time-out and got no answer.
    const unanswered = a.httpStatus === null && a.error?.startsWith('no answer within') === true;
    if (unanswered && (a.durationMs ?? 0) < SENDER_TIMEOUT_MS) fail(INVARIANTS.attempts, `${label(a.subscriptionId)}: attempt ${a.attempt} of ${a.eventId} timed out after ${a.durationMs} ms, before the sender's ${SENDER_TIMEOUT_MS} ms`);
    if (!unanswered) recorded.set(key, (recorded.get(key) ?? 0) + 1);
    let payloadId: unknown;
    try {
      payloadId = (JSON.parse(a.payload) as { id?: unknown }).id;
    } catch {
      payloadId = undefined;
    }
    if (payloadId !== a.eventId) fail(INVARIANTS.webhookId, `${label(a.subscriptionId)}: attempt ${a.attempt} of ${a.eventId} sent a body with id ${String(payloadId)}`);
  }
  for (const [key, n] of recorded) {
    const got = requestsOf.get(key)?.length ?? 0;
    if (n > got) fail(INVARIANTS.attempts, `${label(key.split(' ')[0])}: ${n} attempts of ${key.split(' ')[1]} recorded, ${got} received`);
  }

  // Strict order: once a later event has arrived, an earlier one arrives again only as a duplicate of a delivered one.
  for (const sub of trace.subs.filter((s) => s.plan.ordering === 'strict')) {
    const mine = trace.requests.filter((r) => r.path === sub.path).sort((a, b) => a.arrivedAt - b.arrivedAt);
    // Event order is the events feed's: (txid, seq) (src/events/event-feed.repository.ts).
    const delivered = new Set<string>();
    const before = (a: { txid: bigint; seq: bigint }, b: { txid: bigint; seq: bigint }) => a.txid < b.txid || (a.txid === b.txid && a.seq < b.seq);
    let latest: { id: string; txid: bigint; seq: bigint } | null = null;
    for (const r of mine) {
      const id = r.headers['webhook-id'];
      const event = eventById.get(id);
      if (event === undefined) continue;
      const at = { id, txid: event.txid, seq: event.seq };
      if (latest && before(at, latest) && !delivered.has(id)) {
        fail(INVARIANTS.order, `${sub.plan.label}: ${id} (txid ${at.txid}, seq ${at.seq}) arrived after ${latest.id} (txid ${latest.txid}, seq ${latest.seq}) without having been delivered before`);
        if (process.env.SIM_DEBUG) {
          for (const e of events) note(`  debug event ${e.id} ${e.type} txid ${e.txid} seq ${e.seq} occurred ${e.occurredAt.toISOString()} relayed ${e.relayedAt?.toISOString()} written ${e.deliveriesWrittenAt?.toISOString()}`);
          for (const d of deliveries.filter((x) => x.subscriptionId === sub.id)) note(`  debug delivery ${d.eventId} ${d.status} seq ${d.seq} created ${d.createdAt.toISOString()}`);
          for (const r of mine) note(`  debug arrival ${r.headers['webhook-id']} at ${Math.round(r.arrivedAt)} status ${r.status}`);
        }
      }
      if (!latest || before(latest, at)) latest = at;
      // Delivered once a 2xx answered it; its later arrivals are duplicates (a zombie's, a lost result's).
      if (r.closedAt !== undefined && is2xx(r.status)) delivered.add(id);
    }
  }

  // Bounds: what each receiver and each workspace holds at each arrival.
  const arrivals = (paths: Set<string>) => trace.requests.filter((r) => paths.has(r.path));
  const openAt = (rs: typeof trace.requests, t: number) => rs.filter((r) => r.arrivedAt <= t && (r.closedAt ?? Infinity) > t).length;
  const runningAt = (subs: Set<string>, t: number) => trace.batches.filter((b) => subs.has(b.subscriptionId) && b.start <= t && (b.end ?? Infinity) >= t);
  const measure = (invariant: string, what: string, rs: typeof trace.requests, subs: Set<string>, allowedOf: (running: typeof trace.batches) => number) => {
    let reported = false;
    for (const r of rs) {
      const open = openAt(rs, r.arrivedAt);
      const running = runningAt(subs, r.arrivedAt);
      const allowed = allowedOf(running.filter((b) => !b.zombie));
      if (open <= allowed) continue;
      const zombieWidth = running.filter((b) => b.zombie).reduce((n, b) => n + b.width, 0);
      if (open <= allowed + zombieWidth) {
        trace.stats.zombieExcess = Math.max(trace.stats.zombieExcess, open - allowed);
        continue;
      }
      if (!reported) fail(invariant, `${what} held ${open} at once, allowed ${allowed} (batches running: ${running.map((b) => `${label(b.subscriptionId)} ${b.token.split(':').at(-1)}#${b.attempt} width ${b.width} allowed ${b.allowed}${b.zombie ? ' zombie' : ''}`).join(', ') || 'none'})`);
      reported = true;
    }
  };
  for (const sub of trace.subs) {
    measure(INVARIANTS.inFlight, `${sub.plan.label}'s receiver`, arrivals(new Set([sub.path])), new Set([sub.id]), (running) => Math.max(0, ...running.map((b) => b.allowed)));
  }
  for (const workspaceId of trace.workspaceIds) {
    const subs = trace.subs.filter((s) => s.workspaceId === workspaceId);
    measure(INVARIANTS.cap, `workspace ${workspaceId}`, arrivals(new Set(subs.map((s) => s.path))), new Set(subs.map((s) => s.id)), () => WORKSPACE_CAP);
  }

  // The backlog the API shows equals the rows.
  for (const sub of trace.subs) {
    const row = rowOf.get(sub.id)!;
    if (row.deletedAt) continue;
    const res = await api('GET', `/webhooks/${sub.id}`, { key: trace.apiKeys.get(sub.plan.workspace)! });
    const backlog = res.body?.backlog as { pending: number; inFlight: number; waitingFor: string } | undefined;
    const mine = deliveries.filter((d) => d.subscriptionId === sub.id);
    const waiting = mine.filter((d) => d.status === 'held' || (d.status === 'pending' && d.claim === null)).length;
    const inFlight = mine.filter((d) => d.status === 'pending' && d.claim !== null).length;
    const held = mine.filter((d) => d.status === 'held').length;
    if (!backlog || backlog.pending !== waiting || backlog.inFlight !== inFlight) {
      fail(INVARIANTS.backlog, `${sub.plan.label}: GET shows ${JSON.stringify(backlog)} (${res.status}), the rows ${waiting} waiting and ${inFlight} in flight`);
    } else if (backlog.waitingFor !== (row.condition === 'paused' && held > 0 ? 'paused' : waiting === 0 ? 'nothing' : backlog.waitingFor)) {
      fail(INVARIANTS.backlog, `${sub.plan.label}: GET says it waits for ${backlog.waitingFor} (${row.condition}, ${held} held, ${waiting} waiting)`);
    }
  }
  note(`checked: ${events.length} events, ${deliveries.length} deliveries, ${trace.requests.length} requests, ${violations.length} violation(s)`);
  return violations;
}

type EventRow = Awaited<ReturnType<typeof prisma.event.findMany>>[number];
type SubscriptionRow = Awaited<ReturnType<typeof prisma.webhookSubscription.findMany>>[number];

/**
 * Whether an event goes to a subscription by its filters (docs/integrators/webhooks.md): a test
 * event to its one target; an operational event never to the subscription it is about, and to a
 * board-limited one only when the one it is about is limited to some of those boards; a ticket
 * event by type and board.
 */
function matchesEvent(e: EventRow, s: SubscriptionRow, rows: Map<string, SubscriptionRow>): boolean {
  if (e.workspaceId !== s.workspaceId) return false;
  if (e.type === 'webhook.test') return e.targetSubscriptionId === s.id;
  if (!s.events.includes(e.type)) return false;
  if (e.aboutSubscriptionId !== null) {
    const about = rows.get(e.aboutSubscriptionId)?.boardIds ?? [];
    return s.id !== e.aboutSubscriptionId && (s.boardIds.length === 0 || (about.length > 0 && about.every((b) => s.boardIds.includes(b))));
  }
  return s.boardIds.length === 0 || (e.boardId !== null && s.boardIds.includes(e.boardId));
}
