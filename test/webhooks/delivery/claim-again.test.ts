// A claim that committed but whose result was lost (its worker died before the workflow task
// recorded it) runs again under the same token on replay, and must come back with all it took,
// even when what it took fills the workspace's cap: found by the engine's simulation (seed 133 on
// PostgreSQL), where the rerun counted its own rows as the cap's, got fewer back, and left the
// rest claimed by a run that then ended, until the overdue sweep started another.
import { describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { prisma } from '../../../src/db/db.ts';
import { createDeliveryActivities } from '../../../src/webhooks/delivery/activities.ts';
import { queueRepository, type ClaimResult } from '../../../src/webhooks/delivery/queue.repository.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { initialRunState } from '../../../src/webhooks/delivery/run-state.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { createDelivery, createSubscription, deliveryRow } from '../fixtures.ts';

describe('a claim run again under its token', () => {
  it('returns every row it took the first time, though they fill the workspace cap', async () => {
    const activities = createDeliveryActivities({ allowPrivateTargets: true, mailer: null, workspaceCap: 3 });
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://receiver.example/hook', maxInFlight: 3 });
    const refs = [await createDelivery(ws, sub.id), await createDelivery(ws, sub.id), await createDelivery(ws, sub.id)];
    const execution = { workflowId: deliveryRunWorkflowId(sub.id), runId: 'run-1' };
    const input = { subscriptionId: sub.id, workspaceId: ws.workspace.id, runId: 'run-1', token: 'run-1:1', state: initialRunState(), open: 0, now: Date.now(), waitedFor: null };
    const claim = (): Promise<ClaimResult> => new MockActivityEnvironment({ workflowExecution: execution }).run(activities.claimDue, input);

    const first = await claim();
    const ids = refs.map((r) => r.deliveryId).sort();
    expect(first.deliveries.map((d) => d.id).sort()).toEqual(ids);
    // The replay's claim: the same token, the same input.
    const again = await claim();
    expect(again.deliveries.map((d) => d.id).sort()).toEqual(ids);
    expect(again.capFull).toBe(false);
  });

  it('its take-over frees the rows cancelled since (a 410 or a delete between the claim and its batch), which nothing else would', async () => {
    const activities = createDeliveryActivities({ allowPrivateTargets: true, mailer: null });
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://receiver.example/hook', maxInFlight: 2 });
    const [kept, cancelled] = [await createDelivery(ws, sub.id), await createDelivery(ws, sub.id)];
    const execution = { workflowId: deliveryRunWorkflowId(sub.id), runId: 'run-2' };
    const input = { subscriptionId: sub.id, workspaceId: ws.workspace.id, runId: 'run-2', token: 'run-2:1', state: initialRunState(), open: 0, now: Date.now(), waitedFor: null };
    const claim: ClaimResult = await new MockActivityEnvironment({ workflowExecution: execution }).run(activities.claimDue, input);
    expect(claim.deliveries).toHaveLength(2);
    // As the record of a 410 does to every waiting delivery of its subscription.
    await prisma.delivery.update({ where: { id: cancelled.deliveryId }, data: { status: 'cancelled', nextAttemptAt: null } });

    const { mine } = await queueRepository.takeOver([kept.deliveryId, cancelled.deliveryId], 'run-2:1', 1);
    expect([...mine]).toEqual([kept.deliveryId]);
    expect((await deliveryRow(cancelled.deliveryId)).claim).toBeNull();
    expect((await deliveryRow(kept.deliveryId)).claim).toBe('run-2:1:1');
  });

  it.each([
    ['disabled', 'cancelled'],
    ['paused', 'held'],
  ] as const)('that finds its subscription %s lets go of what it took the first time (%s), as of every row no batch holds', async (condition, status) => {
    // Found by the simulation (seed 252 on PGlite): the claim's result was lost, the subscription
    // disabled, the rerun stopped and left its rows pending and claimed for good.
    const activities = createDeliveryActivities({ allowPrivateTargets: true, mailer: null });
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://receiver.example/hook', maxInFlight: 2 });
    const refs = [await createDelivery(ws, sub.id), await createDelivery(ws, sub.id)];
    const execution = { workflowId: deliveryRunWorkflowId(sub.id), runId: 'run-3' };
    const input = { subscriptionId: sub.id, workspaceId: ws.workspace.id, runId: 'run-3', token: 'run-3:1', state: initialRunState(), open: 0, now: Date.now(), waitedFor: null };
    const claim = (): Promise<ClaimResult> => new MockActivityEnvironment({ workflowExecution: execution }).run(activities.claimDue, input);
    expect((await claim()).deliveries).toHaveLength(2);
    await prisma.webhookSubscription.update({ where: { id: sub.id }, data: { condition } });

    expect((await claim()).stop).toBeTruthy();
    for (const ref of refs) expect(await deliveryRow(ref.deliveryId)).toMatchObject({ status, claim: null });
  });
});
