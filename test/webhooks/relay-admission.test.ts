// Admission (src/webhooks/relay-admission.ts): the relay claims a workspace's events only while its
// deliveries in the engine (undecided, or waiting for a fast receiver's slot) leave room within the
// sum of its subscriptions' bounds, in batches of at least a quarter of it; the rest wait in the
// outbox. Another workspace is not held back, and one subscription's slow receiver, rate,
// Retry-After or retries do not close the door for its workspace. The database's part of the
// relay only (no Temporal).
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';
import { webhookRepository } from '../../src/webhooks/webhook.repository.ts';
import { MIN_ADMISSION, SLOW_SLOT_MS, UNDECIDED_WINDOW_MS, type AdmissionSettings } from '../../src/webhooks/relay-admission.ts';
import { eventWorkflowId } from '../../workflows/delivery/ids.ts';
import { createTestWorkspace, ensureMigrated } from '../support/fixtures.ts';
import { createSubscription } from './fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

const admission: AdmissionSettings = { limit: 100, slotLeaseMs: 60_000 };
const claim = (limit = 200) => webhookRepository.claimEvents(limit, 60_000, admission);

/** `n` ticket.created events of the workspace, written at once. */
async function backlog(ws: Workspace, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => newId('evt'));
  await prisma.event.createMany({ data: ids.map((id) => ({ id, workspaceId: ws.workspace.id, type: 'ticket.created', actorId: ws.admin.id, payload: { id } })) });
  return ids;
}

/** What the relay does with claimed events: a delivery per subscription, then relayed. */
async function relay(events: { id: string }[], subscriptionIds: string[]) {
  const deliveries = await webhookRepository.createDeliveries(
    events.flatMap((e) => subscriptionIds.map((subscriptionId) => ({ eventId: e.id, subscriptionId, workflowId: eventWorkflowId(e.id) }))),
  );
  await webhookRepository.markRelayed(events.map((e) => e.id), new Date());
  return deliveries;
}

/** Gives deliveries a slot row as the acquire function would (`held`: taken `ageMs` ago). */
async function slots(deliveries: { id: string; subscriptionId: string }[], state: 'held' | 'waiting' | 'rate', ageMs = 0) {
  const now = Date.now();
  await prisma.deliverySlot.createMany({
    data: deliveries.map((d, i) => ({
      deliveryId: d.id,
      subscriptionId: d.subscriptionId,
      seq: BigInt(i),
      workflowId: eventWorkflowId(d.id),
      state,
      leaseUntil: new Date(now - ageMs + admission.slotLeaseMs),
      since: new Date(now - ageMs),
    })),
  });
}

const of = <T extends { workspaceId: number }>(ws: Workspace, events: T[]) => events.filter((e) => e.workspaceId === ws.workspace.id);

describe('relay admission', () => {
  beforeAll(ensureMigrated);
  beforeEach(async () => {
    await prisma.event.updateMany({ where: { relayedAt: null }, data: { relayedAt: new Date(), relayLeaseUntil: null } });
  });

  it("admits a bound's worth of a workspace's burst, and another workspace's event beside it", async () => {
    const [a, b] = [await createTestWorkspace(), await createTestWorkspace()];
    const subA = await createSubscription(a, { url: 'https://a.example/hook', maxInFlight: 10 });
    const subB = await createSubscription(b, { url: 'https://b.example/hook' });
    await backlog(a, 100);
    await backlog(b, 1);

    const first = await claim();
    expect(of(a, first)).toHaveLength(MIN_ADMISSION);
    expect(of(b, first)).toHaveLength(1);
    const deliveriesA = await relay(of(a, first), [subA.id]);
    await relay(of(b, first), [subB.id]);

    // A's ten deliveries are undecided: no room until they decide. B's next event goes at once.
    await backlog(b, 1);
    const second = await claim();
    expect(of(a, second)).toHaveLength(0);
    expect(of(b, second)).toHaveLength(1);
    expect(await webhookRepository.hasUnclaimed()).toBe(true);

    // Room opens in batches: two of A's ten took their slots, too little (under a quarter of its
    // share); a third, and three events go.
    await slots(deliveriesA.slice(0, 2), 'held');
    expect(of(a, await claim())).toHaveLength(0);
    await slots(deliveriesA.slice(2, 3), 'held');
    expect(of(a, await claim())).toHaveLength(3);
  });

  it('divides the room by the subscriptions an event goes to, and sums their bounds', async () => {
    const a = await createTestWorkspace();
    await createSubscription(a, { url: 'https://a.example/1', maxInFlight: 20 });
    await createSubscription(a, { url: 'https://a.example/2', maxInFlight: 20 });
    await backlog(a, 100);
    // 40 deliveries of room, two per event.
    expect(await claim()).toHaveLength(20);
  });

  it('opens again as deliveries take slots; waiting for a fast receiver counts, for a slow one not', async () => {
    const a = await createTestWorkspace();
    const sub = await createSubscription(a, { url: 'https://a.example/hook', maxInFlight: 10 });
    await backlog(a, 100);
    const first = await relay(await claim(), [sub.id]);
    expect(first).toHaveLength(10);

    // All ten took their slot (a fast receiver: taken just now): room for ten more.
    await slots(first, 'held');
    const second = await relay(await claim(), [sub.id]);
    expect(second).toHaveLength(10);

    // Those ten wait for a slot of the fast receiver: still in the engine, so no room.
    await slots(second, 'waiting');
    expect(await claim()).toHaveLength(0);

    // The receiver turns slow (its slots held longer than SLOW_SLOT_MS): its queue waits durably,
    // holding nothing, and no longer keeps the workspace's other events (for other subscriptions) out.
    await prisma.deliverySlot.updateMany({
      where: { deliveryId: { in: first.map((d) => d.id) } },
      data: { leaseUntil: new Date(Date.now() - SLOW_SLOT_MS - 1_000 + admission.slotLeaseMs) },
    });
    expect(await claim()).toHaveLength(10);
  });

  it('does not count retries, rate waits, held deliveries or undecided ones past their window', async () => {
    const a = await createTestWorkspace();
    const sub = await createSubscription(a, { url: 'https://a.example/hook', maxInFlight: 10 });
    await backlog(a, 100);

    const retried = await relay(await claim(), [sub.id]);
    await prisma.delivery.updateMany({ where: { id: { in: retried.map((d) => d.id) } }, data: { attemptCount: 1 } });
    const rated = await relay(await claim(), [sub.id]);
    expect(rated).toHaveLength(10);
    await slots(rated, 'rate');
    const held = await relay(await claim(), [sub.id]);
    expect(held).toHaveLength(10);
    await prisma.delivery.updateMany({ where: { id: { in: held.map((d) => d.id) } }, data: { status: 'held' } });
    const stale = await relay(await claim(), [sub.id]);
    expect(stale).toHaveLength(10);

    expect(await claim()).toHaveLength(0);
    // Undecided too long (a worker away): the door opens again.
    await prisma.$executeRaw`UPDATE "Delivery" SET "updatedAt" = "updatedAt" - make_interval(secs => ${UNDECIDED_WINDOW_MS / 1000 + 1}) WHERE "id" = ANY(${stale.map((d) => d.id)})`;
    expect(await claim()).toHaveLength(10);
  });

  it('does not hold back a workspace without subscriptions, nor a disabled subscription', async () => {
    const a = await createTestWorkspace();
    await createSubscription(a, { url: 'https://a.example/hook', condition: 'disabled' });
    await backlog(a, 300);
    expect(await claim(200)).toHaveLength(200);
  });
});
