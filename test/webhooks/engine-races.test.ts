// @vitest-environment postgres
// Races of the delivery engine's SQL between two transactions, on PostgreSQL (PGlite runs one
// transaction at a time): each test holds one side at a named point (workflows/delivery/
// interleave.ts) while the other side runs, and lets it go once the other has either finished or
// is waiting for a lock (pg_stat_activity says which). Ordering only, no timing.
import { afterEach, describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { createDeliveryActivities } from '../../workflows/delivery/activities.ts';
import { deliveryRepository } from '../../workflows/delivery/delivery.repository.ts';
import { setInterleaveHook, type InterleavePoint } from '../../workflows/delivery/interleave.ts';
import { initialRunState } from '../../workflows/delivery/run-state.ts';
import { createTestWorkspace } from '../support/fixtures.ts';
import { someoneWaitsForALock } from '../support/lock-waits.ts';
import { createDelivery, createSubscription } from './fixtures.ts';

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
  activities.claimDue({ subscriptionId, workspaceId, runId, token: `${runId}:1`, state: initialRunState(), inFlight: 0, now: Date.now(), waitedFor: null });

describe('delivery engine races on PostgreSQL', () => {
  afterEach(() => setInterleaveHook(null));

  it('a resume that commits while a claim holds the paused queue is not undone: no delivery stays held on a receiving subscription', async () => {
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://127.0.0.1:9/hook', condition: 'paused' });
    const refs = [await createDelivery(ws, sub.id), await createDelivery(ws, sub.id)];
    await prisma.delivery.update({ where: { id: refs[0]!.deliveryId }, data: { status: 'held' } });

    // The claim reads `paused`; the resume runs before the claim holds the queue.
    const resume = atPointRun('claim:read', sub.id, () => deliveryRepository.resume(sub.id));
    const claimed = await claim(sub.id, ws.workspace.id);
    expect(claimed.stop).toBe('paused');
    expect(await resume.result()).toBe(true);

    const rows = await prisma.delivery.findMany({ where: { subscriptionId: sub.id }, select: { status: true } });
    expect((await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } })).condition).toBe('receiving');
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending']);
  });
});
