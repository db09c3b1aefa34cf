// sendBatch's attempts against each other and against faults after its record, with the real
// activities (MockActivityEnvironment gives each call its attempt number), a real HTTPS receiver
// and the database: a stalled attempt never takes a batch back from a later one, a batch
// heartbeats from its first statement, and what follows the record (waking runs that wait for the
// workspace's cap) cannot fail a batch whose answers are recorded. Ordering only, no timing.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createDeliveryActivities, type BatchResult } from '../../../src/webhooks/delivery/activities.ts';
import type { ClaimResult } from '../../../src/webhooks/delivery/queue.repository.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { setInterleaveHook } from '../../../src/webhooks/delivery/interleave.ts';
import { initialRunState } from '../../../src/webhooks/delivery/run-state.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { uniqueId } from '../../support/temporal.ts';
import { attemptsOf, createDelivery, createSubscription, deliveryRow, updateSubscription } from '../fixtures.ts';
import { createTestCa, startReceiver, type Receiver, type TestCa } from '../receiver.ts';

describe('sendBatch attempts', () => {
  let receiver: Receiver;
  let tls: TestCa;
  beforeAll(async () => {
    tls = createTestCa();
    receiver = await startReceiver(tls);
  });
  afterAll(() => receiver?.close());
  afterEach(() => setInterleaveHook(null));

  /** A subscription with one delivery, claimed by run `run-1` under token `run-1:1`. */
  async function claimedBatch(activities: ReturnType<typeof createDeliveryActivities>, name: string) {
    const ws = await createTestWorkspace();
    const path = `/${uniqueId(name)}`;
    const sub = await createSubscription(ws, { url: `${receiver.origin}${path}` });
    const ref = await createDelivery(ws, sub.id);
    const execution = { workflowId: deliveryRunWorkflowId(sub.id), runId: 'run-1' };
    const claim: ClaimResult = await new MockActivityEnvironment({ workflowExecution: execution }).run(activities.claimDue, {
      subscriptionId: sub.id, workspaceId: ws.workspace.id, runId: 'run-1', token: 'run-1:1', state: initialRunState(), open: 0, now: Date.now(), waitedFor: null,
    });
    expect(claim.deliveries.map((d) => d.id)).toEqual([ref.deliveryId]);
    const attempt = (n: number) => new MockActivityEnvironment({ workflowExecution: execution, attempt: n });
    return { ws, sub, ref, path, attempt, batch: { subscriptionId: sub.id, workspaceId: ws.workspace.id, token: 'run-1:1', deliveries: claim.deliveries, width: 1 } };
  }

  it('an attempt that stalled before its take-over, while Temporal gave the batch to the next attempt, takes nothing back and sends nothing', async () => {
    const activities = createDeliveryActivities({ allowPrivateTargets: true, tls: { ca: tls.ca }, mailer: null });
    const { ref, path, attempt, batch } = await claimedBatch(activities, 'stalled');
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    receiver.respond(path, async () => {
      await answered;
      return { status: 200 };
    });

    // Attempt 2 holds the batch and waits on the receiver.
    const second = attempt(2).run(activities.sendBatch, batch);
    await vi.waitFor(() => expect(receiver.received(path)).toHaveLength(1));
    // Attempt 1 comes to life only now.
    expect(await attempt(1).run(activities.sendBatch, batch)).toMatchObject({ attempted: 0, succeeded: 0 });
    expect(receiver.received(path)).toHaveLength(1);
    expect((await deliveryRow(ref.deliveryId)).claim).toBe('run-1:1:2');

    answer();
    expect(await second).toMatchObject({ attempted: 1, succeeded: 1 });
    expect((await attemptsOf(ref.deliveryId)).map((a) => [a.attempt, a.status])).toEqual([[1, 'succeeded']]);
  });

  it('heartbeats from its first statement on, before it takes its deliveries over', async () => {
    const activities = createDeliveryActivities({ allowPrivateTargets: true, tls: { ca: tls.ca }, mailer: null });
    const { path, attempt, batch } = await claimedBatch(activities, 'beat');
    receiver.respond(path, { status: 200 });
    const env = attempt(1);
    let beats = 0;
    env.on('heartbeat', () => (beats += 1));
    let beatsWhenTaken: number | undefined;
    setInterleaveHook((point, about) => {
      if (point === 'batch:taken' && about === batch.subscriptionId) beatsWhenTaken = beats;
    });
    expect(await env.run(activities.sendBatch, batch)).toMatchObject({ attempted: 1 });
    expect(beatsWhenTaken).toBeGreaterThanOrEqual(1);
  });

  it('returns its answers although the wake-up of runs waiting for the cap fails after the record (Temporal unreachable)', async () => {
    // A real client of a Temporal frontend that is not there, without the SDK's retries: each call fails at once.
    const connection = Connection.lazy({ address: '127.0.0.1:9', interceptors: [] });
    const activities = createDeliveryActivities({ allowPrivateTargets: true, tls: { ca: tls.ca }, mailer: null, client: new Client({ connection }) });
    try {
      const { ws, path, attempt, batch } = await claimedBatch(activities, 'wake-fails');
      receiver.respond(path, { status: 503, headers: { 'retry-after': '120' } });
      // Another subscription of the workspace waits for room in the cap: the batch's end wakes it.
      const waiting = await createSubscription(ws, { url: `${receiver.origin}/never` });
      await updateSubscription(waiting.id, { capWaitingSince: new Date() });
      const result: BatchResult = await attempt(1).run(activities.sendBatch, batch);
      expect(result).toMatchObject({ attempted: 1, succeeded: 0, overloaded: true });
      expect(result.retryAfterUntil).not.toBeNull();
      expect(result.nextAttemptAt).not.toBeNull();
    } finally {
      await connection.close();
    }
  });
});
