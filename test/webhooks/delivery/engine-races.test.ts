// @vitest-environment postgres
// Races of the delivery engine's SQL between two transactions, on PostgreSQL (PGlite runs one
// transaction at a time): each test holds one side at a named point
// (src/webhooks/delivery/interleave.ts) while the other side runs, and lets it go once the other has either finished or
// is waiting for a lock (pg_stat_activity says which). Ordering only, no timing.
import { afterEach, describe, expect, it } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { writeEvent } from '../../../src/events/event.outbox.ts';
import { createDeliveryActivities } from '../../../src/webhooks/delivery/activities.ts';
import { conditionRepository } from '../../../src/webhooks/subscriptions/condition.repository.ts';
import { setInterleaveHook, type InterleavePoint } from '../../../src/webhooks/delivery/interleave.ts';
import { initialRunState } from '../../../src/webhooks/delivery/run-state.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { someoneWaitsForALock } from '../../support/lock-waits.ts';
import { createDelivery, createSubscription } from '../fixtures.ts';

const activities = createDeliveryActivities({ mailer: null, allowPrivateTargets: true });

/** At `point` for `about`, once: runs `other` and goes on when it finished or waits for a lock. Returns `other`'s promise. */
function atPointRun<T>(point: InterleavePoint, about: string, other: () => Promise<T>): { result: () => Promise<T> } {
  let started: Promise<T> | undefined;
  setInterleaveHook(async (p, a) => {
    if (p !== point || a !== about || started) return;
    started = other();
    await Promise.race([started, someoneWaitsForALock()]);
  });
  return {
    result: () => {
      if (!started) throw new Error(`the point ${point} was never reached`);
      return started;
    },
  };
}

const claim = (subscriptionId: string, workspaceId: number, runId = 'run-1') =>
  activities.claimDue({ subscriptionId, workspaceId, runId, token: `${runId}:1`, state: initialRunState(), open: 0, now: Date.now(), waitedFor: null });

describe('delivery engine races on PostgreSQL', () => {
  afterEach(() => setInterleaveHook(null));

  it('a resume that commits while a claim holds the paused queue is not undone: no delivery stays held on a receiving subscription', async () => {
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://127.0.0.1:9/hook', condition: 'paused' });
    const refs = [await createDelivery(ws, sub.id), await createDelivery(ws, sub.id)];
    await prisma.delivery.update({ where: { id: refs[0].deliveryId }, data: { status: 'held' } });

    // The claim reads `paused`; the resume runs before the claim holds the queue.
    const resume = atPointRun('claim:read', sub.id, () => conditionRepository.resume(sub.id));
    const claimed = await claim(sub.id, ws.workspace.id);
    expect(claimed.stop).toBe('paused');
    expect(await resume.result()).toBe(true);

    const rows = await prisma.delivery.findMany({ where: { subscriptionId: sub.id }, select: { status: true } });
    expect((await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } })).condition).toBe('receiving');
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending']);
  });

  it('a strict claim leaves a later event alone while a transaction that wrote an earlier one has not committed', async () => {
    // Found by the simulation (seed 371): by seq alone, an event whose transaction commits late
    // (a slow request's) reached a strict receiver after an event that came after it.
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://127.0.0.1:9/hook', ordering: 'strict' });
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    let written!: () => void;
    const earlierWritten = new Promise<void>((resolve) => (written = resolve));
    const earlier = prisma.$transaction(
      async (tx) => {
        await writeEvent(tx, { type: 'ticket.created', workspace: ws.workspace, actor: { id: ws.admin.id, name: ws.admin.fullName }, boardId: ws.boards[0].id, data: { id: 0, subject: 'earlier', version: 1 } });
        written();
        await committing;
      },
      { timeout: 60_000 },
    );
    await earlierWritten;
    // A later event, committed, with its delivery written as the relay writes it.
    const later = await createDelivery(ws, sub.id);

    const first = await claim(sub.id, ws.workspace.id);
    expect(first.deliveries).toEqual([]);
    expect(first.dueNow).toBe(true); // the run looks again soon
    commit();
    await earlier;
    // Committed now, the earlier event is unrelayed without deliveries: the later one still waits for it.
    expect((await claim(sub.id, ws.workspace.id, 'run-2')).deliveries).toEqual([]);
    expect((await prisma.delivery.findUniqueOrThrow({ where: { id: later.deliveryId } })).claim).toBeNull();
  });
});
