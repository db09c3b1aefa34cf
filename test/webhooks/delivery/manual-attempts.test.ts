// Manual attempts (re-sends, recoveries) are sent by the subscription's delivery run: they count
// against its in-flight bound and the workspace's cap like its scheduled attempts, and re-sends of
// one delivery that wait together get one attempt. On the time-skipping test server, with a real
// worker running the real activities against an HTTPS receiver and the database.
import { describe, expect, it, vi } from 'vitest';
import { Client } from '@temporalio/client';
import { resendDelivery } from '../../../src/webhooks/delivery/client.ts';
import { wakeRun } from '../../../src/webhooks/delivery/wake.ts';
import { MANUAL_REQUESTS_PER_DELIVERY } from '../../../src/webhooks/delivery/constants.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { prisma } from '../../../src/db/db.ts';
import { stateQuery } from '../../../src/webhooks/delivery/signals.ts';
import type { DeliveryRef } from '../../../src/webhooks/delivery/search-attributes.ts';
import { startRecovery } from '../../../src/webhooks/log/recover.client.ts';
import type { recoverFailedDeliveriesWorkflow } from '../../../src/webhooks/log/recover.workflows.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { uniqueId } from '../../support/temporal.ts';
import { useTimeSkippingDeliveryStack } from '../../support/delivery-stack.ts';
import { createDelivery, createSubscription, deliveryRow, runResult, subscriptionRow } from '../fixtures.ts';
import { deliveryWithAttempts, manualAttemptsOf } from '../recover.fixtures.ts';

/** The workspace cap of this file's worker: small, so that a test can fill it. */
const WORKSPACE_CAP = 3;
const MINUTE = 60_000;
const WAIT = { timeout: 30_000, interval: 50 };

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

/** A responder that holds every request until released (then answers the rest at once), counting the requests it holds at once. */
function gate() {
  let open = 0;
  let most = 0;
  let shut = true;
  const held: (() => void)[] = [];
  return {
    respond: async () => {
      open += 1;
      most = Math.max(most, open);
      if (shut) await new Promise<void>((resolve) => held.push(resolve));
      else await new Promise<void>((resolve) => setImmediate(resolve));
      open -= 1;
      return { status: 200 };
    },
    held: () => held.length,
    most: () => most,
    /** Answers the requests held now; those that come later are held again. */
    release: () => held.splice(0).forEach((go) => go()),
    /** Answers the requests held now and every later one at once. */
    open: () => {
      shut = false;
      held.splice(0).forEach((go) => go());
    },
  };
}

describe('manual attempts within the bound and the cap (time-skipping)', { timeout: 120_000 }, () => {
  const stack = useTimeSkippingDeliveryStack({ queue: 'manual', recover: true, activities: (server) => ({ client: server.client, mailer: null, workspaceCap: WORKSPACE_CAP }) });

  const hook = (name: string) => {
    const path = `/${uniqueId(name)}`;
    return { path, url: `${stack.receiver.origin}${path}` };
  };
  const wake = (ref: DeliveryRef) => wakeRun(stack.env.client, stack.taskQueue, { subscriptionId: ref.subscriptionId, workspaceId: ref.workspaceId });
  /**
   * Waits on a client that does not skip time: the time-skipping client's `result()` lets the
   * server's clock jump while a test holds a batch's requests, and the batch would be given up for
   * dead (its heartbeat time-out) and sent again.
   */
  const plain = () => new Client({ connection: stack.env.connection, namespace: stack.env.namespace });
  const resend = (ref: DeliveryRef, requestId = uniqueId('req')) => resendDelivery(plain(), stack.taskQueue, ref, requestId);
  const failed = async (ws: Workspace, subscriptionId: string, at: Date) => deliveryWithAttempts(ws, subscriptionId, [{ at }]);
  const eventIdsAt = (path: string) => stack.receiver.received(path).map((r) => r.headers['webhook-id']);
  /** Asked for: written on the delivery for its run, or (were it sent outside the run) arrived at the receiver. */
  const askedFor = async (path: string, ref: DeliveryRef) => (await deliveryRow(ref.deliveryId)).manualRequests.length > 0 || eventIdsAt(path).includes(ref.eventId);

  /** A subscription with maxInFlight 1 whose one attempt in flight the receiver holds, and a failed delivery of it to re-send. */
  async function oneInFlight(name: string) {
    const ws = await createTestWorkspace();
    const { path, url } = hook(name);
    const g = gate();
    stack.receiver.respond(path, g.respond);
    const sub = await createSubscription(ws, { url, maxInFlight: 1 });
    const first = await createDelivery(ws, sub.id);
    const ref = await failed(ws, sub.id, new Date(Date.now() - MINUTE));
    await wake(first);
    await vi.waitFor(() => expect(g.held()).toBe(1), WAIT);
    return { path, g, sub, first, ref };
  }

  it('a subscription with maxInFlight 2 never has more than 2 attempts open while re-sends and a recovery are asked for', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('bound');
    const g = gate();
    stack.receiver.respond(path, g.respond);
    const sub = await createSubscription(ws, { url, maxInFlight: 2 });
    const since = new Date(Date.now() - 60 * MINUTE);
    const scheduled = [await createDelivery(ws, sub.id), await createDelivery(ws, sub.id), await createDelivery(ws, sub.id)];
    // Re-sent by a person: failed before the recovery's window. Recovered: failed in it.
    const resent = [await failed(ws, sub.id, new Date(since.getTime() - MINUTE)), await failed(ws, sub.id, new Date(since.getTime() - MINUTE))];
    const recovered = [await failed(ws, sub.id, since), await failed(ws, sub.id, since), await failed(ws, sub.id, since)];

    await wake(scheduled[0]);
    await vi.waitFor(() => expect(g.held()).toBe(2), WAIT);
    const resends = resent.map((ref) => resend(ref));
    const recovery = await startRecovery(stack.env.client, stack.taskQueue, { subscriptionId: sub.id, workspaceId: ws.workspace.id, since: since.toISOString(), until: new Date().toISOString() }, uniqueId('req'));
    for (const ref of [...resent, ...recovered]) await vi.waitFor(async () => expect(await askedFor(path, ref)).toBe(true), WAIT);
    // All asked for while the bound is full: they wait in the run's queue, none is sent beside it.
    expect(g.held()).toBe(2);
    expect(g.most()).toBe(2);
    expect((await stack.env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).query(stateQuery)).waitingFor).toBe('in_flight_bound');

    // From here on every request is answered at once: the bound still holds (the receiver counts).
    const total = scheduled.length + resent.length + recovered.length;
    g.open();
    expect(await plain().workflow.getHandle<typeof recoverFailedDeliveriesWorkflow>(recovery.workflowId).result()).toMatchObject({ resent: 3, succeeded: 3, stopped: null });
    for (const [i, { result, workflowId }] of (await Promise.all(resends)).entries()) {
      // The delivery's count continues; the attempt is the re-send's in the log.
      expect(result).toMatchObject({ outcome: 'succeeded', attempt: 2, httpStatus: 200 });
      expect(await manualAttemptsOf(resent[i].deliveryId)).toMatchObject([{ attempt: 2, status: 'succeeded', workflowId }]);
      expect(await deliveryRow(resent[i].deliveryId)).toMatchObject({ status: 'succeeded', manualRequests: [], manualRequestedAt: null, claim: null });
    }
    for (const ref of recovered) expect(await manualAttemptsOf(ref.deliveryId)).toMatchObject([{ status: 'succeeded', workflowId: recovery.workflowId }]);
    expect(await runResult(stack.env.client, sub.id)).toMatchObject({ ended: 'idle' });
    expect(g.most()).toBe(2);
    expect(stack.receiver.received(path)).toHaveLength(total);
  });

  it('a workspace at its cap gets no manual attempt beyond it: the re-send waits for room, then goes', async () => {
    const ws = await createTestWorkspace();
    const busy = hook('cap-busy');
    const waiting = hook('cap-waiting');
    const g = gate();
    stack.receiver.respond(busy.path, g.respond);
    stack.receiver.respond(waiting.path, { status: 200 });
    const a = await createSubscription(ws, { url: busy.url, maxInFlight: WORKSPACE_CAP });
    const b = await createSubscription(ws, { url: waiting.url });
    const refsA: DeliveryRef[] = [];
    for (let i = 0; i < WORKSPACE_CAP; i++) refsA.push(await createDelivery(ws, a.id));
    const refB = await failed(ws, b.id, new Date(Date.now() - MINUTE));

    await wake(refsA[0]);
    await vi.waitFor(() => expect(g.held()).toBe(WORKSPACE_CAP), WAIT);
    const resent = resend(refB);
    // Asked for, and b's run waits for room in the workspace's cap (or, sent outside it, the request arrived).
    await vi.waitFor(async () => expect(eventIdsAt(waiting.path).length > 0 || (await subscriptionRow(b.id)).capWaitingSince !== null).toBe(true), WAIT);
    expect(eventIdsAt(waiting.path)).toEqual([]);
    expect(await stack.env.client.workflow.getHandle(deliveryRunWorkflowId(b.id)).query(stateQuery)).toMatchObject({ inFlight: 0, waitingFor: 'workspace_cap' });

    g.release();
    expect((await resent).result).toMatchObject({ outcome: 'succeeded', attempt: 2 });
    expect(eventIdsAt(waiting.path)).toEqual([refB.eventId]);
    expect(await runResult(stack.env.client, a.id)).toMatchObject({ attempted: WORKSPACE_CAP, ended: 'idle' });
  });

  it(`re-sends of one delivery that wait together get one attempt; beyond ${MANUAL_REQUESTS_PER_DELIVERY} they are refused (busy)`, async () => {
    const { path, g, first, ref } = await oneInFlight('join');

    const requestIds = Array.from({ length: MANUAL_REQUESTS_PER_DELIVERY + 1 }, () => uniqueId('req'));
    const resends = requestIds.map((id) => resend(ref, id));
    // One of them finds MANUAL_REQUESTS_PER_DELIVERY waiting already and is answered at once.
    const refused = await Promise.race(resends);
    expect(refused.result).toEqual({ outcome: 'busy' });
    expect((await deliveryRow(ref.deliveryId)).manualRequests).toHaveLength(MANUAL_REQUESTS_PER_DELIVERY);

    g.release();
    await vi.waitFor(() => expect(g.held()).toBe(1), WAIT);
    g.release();
    const answers = (await Promise.all(resends)).filter((r) => r.workflowId !== refused.workflowId);
    const [attempt, ...more] = await manualAttemptsOf(ref.deliveryId);
    expect(more).toEqual([]);
    expect(answers.map((a) => a.result)).toEqual(answers.map(() => ({ outcome: 'succeeded', attemptId: attempt.id, attempt: 2, httpStatus: 200 })));
    // The log ties it to the re-send that asked first; the others got it too.
    expect(answers.map((a) => a.workflowId)).toContain(attempt.workflowId);
    expect(eventIdsAt(path)).toEqual([first.eventId, ref.eventId]);
    expect(await deliveryRow(ref.deliveryId)).toMatchObject({ manualRequests: [], manualRequestedAt: null });
  });

  it('a re-send of a cancelled delivery still claimed by a run that ended (a batch it never started) goes out, and the claim is freed', async () => {
    // A run that ends on a disable (a 410 of its previous batch) or a delete leaves the claim of a
    // batch it had claimed but not started on the rows that stop cancelled (the simulation allows
    // it as inert): the run a re-send wakes frees every earlier run's claim at its first claim.
    const ws = await createTestWorkspace();
    const { path, url } = hook('inert-claim');
    stack.receiver.respond(path, async () => ({ status: 200 }));
    const sub = await createSubscription(ws, { url, maxInFlight: 1 });
    const ref = await createDelivery(ws, sub.id);
    await prisma.delivery.update({ where: { id: ref.deliveryId }, data: { status: 'cancelled', claim: 'an-ended-run:2:1' } });

    const { result } = await resend(ref);
    expect(result).toMatchObject({ outcome: 'succeeded', httpStatus: 200 });
    expect(eventIdsAt(path)).toEqual([ref.eventId]);
    expect(await deliveryRow(ref.deliveryId)).toMatchObject({ claim: null, manualRequests: [] });
    await runResult(plain(), sub.id);
  });

  it('a re-send whose delivery is deleted while it waits ends `cancelled` once it looks again (MANUAL_RECHECK_MS)', async () => {
    const { path, g, sub, first, ref } = await oneInFlight('deleted');
    const { workflowId } = await resendDelivery(plain(), stack.taskQueue, ref, uniqueId('req'), AbortSignal.abort());
    await vi.waitFor(async () => expect((await deliveryRow(ref.deliveryId)).manualRequests).toHaveLength(1), WAIT);
    // Deleted (as retention or a deleted subscription would): the run never finds it, nor answers.
    await prisma.delivery.delete({ where: { id: ref.deliveryId } });
    g.release();
    await runResult(plain(), sub.id);
    // Nothing else runs: the server skips to the re-send's next look.
    expect(await stack.env.client.workflow.getHandle(workflowId).result()).toEqual({ outcome: 'cancelled' });
    expect(eventIdsAt(path)).toEqual([first.eventId]);
  });
});
