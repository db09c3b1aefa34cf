// The recovery workflow on the time-skipping test server, with a real worker running the real
// delivery and recovery activities against a real HTTPS receiver and the database. The recovery
// asks the subscription's delivery run for its manual attempts; the run sends them within its bound.
import { describe, expect, it } from 'vitest';
import { startRecovery } from '../../../src/webhooks/log/recover.client.ts';
import type { recoverFailedDeliveriesWorkflow } from '../../../src/webhooks/log/recover.workflows.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { SubscriptionIdKey, WorkspaceIdKey, type DeliveryRef } from '../../../src/webhooks/delivery/search-attributes.ts';
import { prisma } from '../../../src/db/db.ts';
import { deliveryBody } from '../../../src/webhooks/message/webhook-sender.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { uniqueId } from '../../support/temporal.ts';
import { useTimeSkippingDeliveryStack } from '../../support/delivery-stack.ts';
import { attemptsOf, createDelivery, createSubscription, deliveryResult, deliveryRow, wakeRunOf, updateSubscription } from '../fixtures.ts';
import { deliveryWithAttempts, manualAttemptsOf } from '../recover.fixtures.ts';
import { type Answer } from '../receiver.ts';

const MINUTE = 60_000;

describe('recovery workflow (time-skipping)', () => {
  const stack = useTimeSkippingDeliveryStack({ queue: 'recover', recover: true, activities: () => ({ mailer: null, timeoutMs: 30_000 }) });

  const hook = (name: string) => ({ path: `/${name}`, url: `${stack.receiver.origin}/${name}` });
  const recoveryResult = (workflowId: string) => stack.env.client.workflow.getHandle<typeof recoverFailedDeliveriesWorkflow>(workflowId).result();
  const bodyOf = async (ref: DeliveryRef) => deliveryBody((await prisma.event.findUniqueOrThrow({ where: { id: ref.eventId } })).payload);

  /** The inputs of a workflow's activities of one type, in the order it scheduled them. */
  async function activityInputs(workflowId: string, type: string): Promise<Record<string, unknown>[]> {
    const history = await stack.env.client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      if (a?.activityType?.name !== type) return [];
      return [JSON.parse(Buffer.from(a.input!.payloads![0].data!).toString())];
    });
  }

  it('asks the run for manual attempts of the deliveries that failed in the window: in event order, within the subscription’s bound', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook(uniqueId('recover'));
    const bound = 3;
    const sub = await createSubscription(ws, { url, maxInFlight: bound });
    const other = await createSubscription(ws, { url });
    const since = new Date(Date.now() - 60 * MINUTE);
    const until = new Date(since.getTime() + 30 * MINUTE);
    const at = (minutes: number) => new Date(since.getTime() + minutes * MINUTE);

    const included: DeliveryRef[] = [];
    // The first exactly at `since` (inclusive); one still being retried (pending); one cancelled by a 410.
    included.push(await deliveryWithAttempts(ws, sub.id, [{ at: at(0) }]));
    included.push(await deliveryWithAttempts(ws, sub.id, [{ at: at(-5) }, { at: at(1) }], 'pending'));
    included.push(await deliveryWithAttempts(ws, sub.id, [{ at: at(2) }], 'cancelled'));
    // Failed in the window and again after it: still not delivered.
    included.push(await deliveryWithAttempts(ws, sub.id, [{ at: at(3) }, { at: at(45) }]));
    for (let i = 4; i < 8; i++) included.push(await deliveryWithAttempts(ws, sub.id, [{ at: at(i) }]));
    const excluded = [
      await deliveryWithAttempts(ws, sub.id, [{ at: at(-1) }]), // before the window
      await deliveryWithAttempts(ws, sub.id, [{ at: until }]), // at `until` (exclusive)
      await deliveryWithAttempts(ws, sub.id, [{ at: at(5) }, { at: at(6), status: 'succeeded' }], 'succeeded'), // got through
      await deliveryWithAttempts(ws, sub.id, [{ at: at(5) }], 'held'), // the release after a resume sends it
      await deliveryWithAttempts(ws, sub.id, [], 'cancelled'), // no attempt (cancelled before its first)
      await deliveryWithAttempts(ws, other.id, [{ at: at(5) }]), // another subscription's
    ];

    // Holds the answers until the bound's worth of requests are in flight (and a little longer, so
    // that one more would show), or every expected request has arrived.
    let inFlight = 0;
    let maxInFlight = 0;
    const waiting: (() => void)[] = [];
    const releaseAll = () => waiting.splice(0).forEach((go) => go());
    stack.receiver.respond(path, () => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const answered = new Promise<Answer>((resolve) => waiting.push(() => (inFlight -= 1, resolve({ status: 200, body: 'recovered' }))));
      if (stack.receiver.received(path).length === included.length) releaseAll();
      else if (inFlight === bound) setTimeout(releaseAll, 300);
      return answered;
    });

    const requestId = uniqueId('req');
    const recovery = await startRecovery(stack.env.client, stack.taskQueue, { subscriptionId: sub.id, workspaceId: ws.workspace.id, since: since.toISOString(), until: until.toISOString() }, requestId);
    expect(recovery).toEqual({ workflowId: `recover:${sub.id}:${requestId}`, subscriptionId: sub.id, since: since.toISOString(), until: until.toISOString(), status: 'running' });
    expect(await recoveryResult(recovery.workflowId)).toEqual({ resent: 8, succeeded: 8, failed: 0, stopped: null, afterSeq: expect.any(String) });

    // Asked for in event order; sent by the subscription's run in event order, at most its bound at once.
    expect((await activityInputs(recovery.workflowId, 'requestManualAttempts')).map((i) => i.deliveryIds)).toEqual([included.map((r) => r.deliveryId)]);
    const batches = await activityInputs(deliveryRunWorkflowId(sub.id), 'sendBatch');
    expect(batches.flatMap((b) => (b.deliveries as { id: string }[]).map((d) => d.id))).toEqual(included.map((r) => r.deliveryId));
    expect(maxInFlight).toBe(bound);
    const requests = stack.receiver.received(path);
    expect(requests.map((r) => r.headers['webhook-id']).sort()).toEqual(included.map((r) => r.eventId).sort());
    for (const ref of included) {
      const request = requests.find((r) => r.headers['webhook-id'] === ref.eventId)!;
      expect(request.body).toBe(await bodyOf(ref));
      const [manual, ...more] = await manualAttemptsOf(ref.deliveryId);
      expect(more).toHaveLength(0);
      expect(manual).toMatchObject({ trigger: 'manual', status: 'succeeded', httpStatus: 200, workflowId: recovery.workflowId, payload: request.body });
      expect(await deliveryRow(ref.deliveryId)).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
    }
    for (const ref of excluded) expect(await manualAttemptsOf(ref.deliveryId)).toHaveLength(0);

    // Operators find it in Temporal Web by subscription and workspace, with its window.
    const description = await stack.env.client.workflow.getHandle(recovery.workflowId).describe();
    expect(description.typedSearchAttributes.get(SubscriptionIdKey)).toBe(sub.id);
    expect(description.typedSearchAttributes.get(WorkspaceIdKey)).toBe(String(ws.workspace.id));
    expect(description.memo).toEqual({ since: since.toISOString(), until: until.toISOString() });

    // The same request again starts nothing: it gets the recovery it started, with its window.
    const again = await startRecovery(stack.env.client, stack.taskQueue, { subscriptionId: sub.id, workspaceId: ws.workspace.id, since: at(-30).toISOString(), until: until.toISOString() }, requestId);
    expect(again).toEqual({ ...recovery, status: 'finished' });
    expect(stack.receiver.received(path)).toHaveLength(included.length);
  });

  it('a delivery that a recovery gets through sends none of its remaining scheduled attempts', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook(uniqueId('retrying'));
    let healthy = false;
    stack.receiver.respond(path, () => (healthy ? { status: 200 } : { status: 503 }));
    const sub = await createSubscription(ws, { url });
    const ref = await createDelivery(ws, sub.id);
    await wakeRunOf(stack.env.client, stack.taskQueue, ref);
    await expect.poll(async () => (await deliveryRow(ref.deliveryId)).attemptCount, { timeout: 20_000, message: 'the first attempt' }).toBe(1);
    expect(await deliveryRow(ref.deliveryId)).toMatchObject({ status: 'pending' });

    healthy = true;
    const now = await stack.env.currentTimeMs();
    const recovery = await startRecovery(
      stack.env.client,
      stack.taskQueue,
      { subscriptionId: sub.id, workspaceId: ws.workspace.id, since: new Date(now - 60 * MINUTE).toISOString(), until: new Date(now + 1_000).toISOString() },
      uniqueId('req'),
    );
    expect(await recoveryResult(recovery.workflowId)).toMatchObject({ resent: 1, succeeded: 1, stopped: null });

    // The subscription's run finds the delivery succeeded when its second attempt would fall due: it sends nothing more.
    expect(await deliveryResult(stack.env.client, ref)).toEqual({ status: 'succeeded', attempt: 1 });
    expect(stack.receiver.received(path)).toHaveLength(2);
    expect((await attemptsOf(ref.deliveryId)).map((a) => [a.trigger, a.status])).toEqual([
      ['scheduled', 'failed'],
      ['manual', 'succeeded'],
    ]);
  });

  it('stops when the subscription is paused meanwhile', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook(uniqueId('pausing'));
    const bound = 2;
    const sub = await createSubscription(ws, { url, maxInFlight: bound });
    const since = new Date(Date.now() - 60 * MINUTE);
    const refs: DeliveryRef[] = [];
    for (let i = 0; i < bound + 5; i++) refs.push(await deliveryWithAttempts(ws, sub.id, [{ at: new Date(since.getTime() + i * MINUTE) }]));
    // What 20 failures in a row do, done by the first request; it is answered once the pause is committed.
    stack.receiver.respond(path, async () => {
      await updateSubscription(sub.id, { condition: 'paused' });
      return { status: 500 };
    });

    const recovery = await startRecovery(
      stack.env.client,
      stack.taskQueue,
      { subscriptionId: sub.id, workspaceId: ws.workspace.id, since: since.toISOString(), until: new Date().toISOString() },
      uniqueId('req'),
    );
    const outcome = await recoveryResult(recovery.workflowId);
    expect(outcome.stopped).toBe('paused');
    // The run's first batch (its bound's worth) was sent; its next claim found the subscription
    // paused and answered the rest `held`: nothing sent, nothing logged.
    expect(stack.receiver.received(path)).toHaveLength(bound);
    expect(outcome).toMatchObject({ resent: bound, failed: bound, succeeded: 0 });
    for (const ref of refs.slice(0, bound)) expect(await manualAttemptsOf(ref.deliveryId)).toMatchObject([{ status: 'failed', workflowId: recovery.workflowId }]);
    for (const ref of refs.slice(bound)) {
      expect(await manualAttemptsOf(ref.deliveryId)).toHaveLength(0);
      expect(await deliveryRow(ref.deliveryId)).toMatchObject({ manualRequests: [], manualRequestedAt: null });
    }
  });
});
