// The delivery run's rules on the time-skipping test server, with a real worker running the real
// activities against a real HTTPS receiver and the database: the bound under a burst, deep batches, the
// workspace's cap, Retry-After in both forms, AIMD, strict ordering, events joining a busy run,
// continue-as-new keeping event ids findable, the run's state query, and a replay of a recorded
// history. (The schedule, 410, pause/resume and the zombie fence: delivery-workflow.test.ts.)
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { wakeRun } from '../../../src/webhooks/delivery/wake.ts';
import { BATCHES_PER_RUN, PIPELINE_DEPTH } from '../../../src/webhooks/delivery/constants.ts';
import { setInterleaveHook } from '../../../src/webhooks/delivery/interleave.ts';
import type { ClaimResult } from '../../../src/webhooks/delivery/queue.repository.ts';
import { createOutboxRelay } from '../../../src/webhooks/fanout/outbox-relay.ts';
import { prisma } from '../../../src/db/db.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { SubscriptionIdKey, WorkspaceIdKey } from '../../../src/webhooks/delivery/search-attributes.ts';
import { stateQuery } from '../../../src/webhooks/delivery/signals.ts';
import type { DeliveryRef } from '../../../src/webhooks/delivery/search-attributes.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { uniqueId } from '../../support/temporal.ts';
import { startTimeSkippingDeliveryStack } from '../../support/delivery-stack.ts';
import { attemptsOf, createDelivery, createEvent, createSubscription, deliveryRow, runResult, subscriptionRow, updateSubscription } from '../fixtures.ts';
import { createTestCa, startReceiver, type Answer, type Receiver, type TestCa } from '../receiver.ts';

/** The workspace cap of this file's worker: small, so that a test can fill it. */
const WORKSPACE_CAP = 6;
/** What a test does once its subscription's run has claimed and found nothing left (see the wrap below). */
const afterEmptyClaim = new Map<string, () => Promise<void>>();
/** A test waiting for its subscription's next claim, with what it took. */
const nextClaimOf = new Map<string, (claim: ClaimResult) => void>();
const nextClaim = (subscriptionId: string) => new Promise<ClaimResult>((resolve) => nextClaimOf.set(subscriptionId, resolve));

describe('delivery runs (time-skipping)', { timeout: 120_000 }, () => {
  let env: TestWorkflowEnvironment;
  let receiver: Receiver;
  let tls: TestCa;
  let taskQueue: string;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    tls = createTestCa();
    receiver = await startReceiver(tls);
    ({ env, taskQueue, stop } = await startTimeSkippingDeliveryStack({
      queue: 'runs',
      tls,
      activities: (server) => ({ client: server.client, mailer: null, workspaceCap: WORKSPACE_CAP }),
      // A test may act once right after a claim of its subscription found the queue empty (the run is about to end).
      wrap: (a) => ({
        ...a,
        async claimDue(input) {
          const claim = await a.claimDue(input);
          nextClaimOf.get(input.subscriptionId)?.(claim);
          nextClaimOf.delete(input.subscriptionId);
          const act = afterEmptyClaim.get(input.subscriptionId);
          if (act && !claim.stop && claim.deliveries.length === 0 && claim.nextDueAt === null) {
            afterEmptyClaim.delete(input.subscriptionId);
            await act();
          }
          return claim;
        },
      }),
    }));
  }, 120_000);

  afterAll(async () => {
    await stop?.();
    await receiver?.close();
  }, 60_000);

  const hook = (name: string) => {
    const path = `/${uniqueId(name)}`;
    return { path, url: `${receiver.origin}${path}` };
  };
  /** Wakes the subscription's run after these deliveries were written, as the relay does. */
  const wake = (refs: DeliveryRef[]) => wakeRun(env.client, taskQueue, { subscriptionId: refs[0].subscriptionId, workspaceId: refs[0].workspaceId });
  const deliveries = async (ws: Awaited<ReturnType<typeof createTestWorkspace>>, subscriptionId: string, n: number) => {
    const refs: DeliveryRef[] = [];
    for (let i = 0; i < n; i++) refs.push(await createDelivery(ws, subscriptionId));
    return refs;
  };

  /** A responder that counts the requests it holds at once and answers each after `release()`. */
  function gate(answer: Answer = { status: 200 }) {
    let open = false;
    let inFlight = 0;
    let most = 0;
    const waiting: (() => void)[] = [];
    return {
      respond: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        if (!open) await new Promise<void>((resolve) => waiting.push(resolve));
        inFlight -= 1;
        return answer;
      },
      held: () => waiting.length,
      most: () => most,
      release() {
        open = true;
        for (const w of waiting.splice(0)) w();
      },
    };
  }

  it('never has more attempts in flight than the bound under a burst, and sends the oldest events first', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('burst');
    const g = gate();
    receiver.respond(path, g.respond);
    const sub = await createSubscription(ws, { url, maxInFlight: 3 });
    const refs = await deliveries(ws, sub.id, 12);
    await wake(refs);

    // The first batch fills the bound with the three oldest events, and waits on the receiver.
    await vi.waitFor(() => expect(g.held()).toBe(3), 20_000);
    expect(receiver.received(path).map((r) => r.headers['webhook-id']).sort()).toEqual(refs.slice(0, 3).map((r) => r.eventId).sort());
    const view = await env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).query(stateQuery);
    expect(view).toMatchObject({ subscriptionId: sub.id, inFlight: 3, effectiveInFlight: 3, waitingFor: 'in_flight_bound' });

    g.release();
    expect(await runResult(env.client, sub.id)).toEqual({ attempted: 12, ended: 'idle' });
    expect(g.most()).toBe(3);
    for (const ref of refs) expect(await deliveryRow(ref.deliveryId)).toMatchObject({ status: 'succeeded', scheduledAttempts: 1, claim: null });
  });

  it('sends a fast receiver deep batches, never more at once than the bound; a failure stops the batch and the rest go back unsent', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('deep');
    // A bound of one: a deep batch sends its deliveries one after the other.
    const sub = await createSubscription(ws, { url, maxInFlight: 1 });
    const refs = await deliveries(ws, sub.id, 1 + PIPELINE_DEPTH + 3);
    // The second event of the deep batch fails once; everything else answers 200 at once.
    const failing = refs[2].eventId;
    let failed = false;
    let open = 0;
    let most = 0;
    receiver.respond(path, async (req) => {
      open += 1;
      most = Math.max(most, open);
      await new Promise((r) => setTimeout(r, 5));
      open -= 1;
      if (req.headers['webhook-id'] === failing && !failed) {
        failed = true;
        return { status: 500 };
      }
      return { status: 200 };
    });
    await wake(refs);
    expect(await runResult(env.client, sub.id)).toEqual({ attempted: refs.length + 1, ended: 'idle' });
    expect(most).toBe(1);
    // Only the failed event used a second attempt: what its batch had not started went back unsent.
    for (const ref of refs) {
      expect(await deliveryRow(ref.deliveryId)).toMatchObject({ status: 'succeeded', scheduledAttempts: ref.eventId === failing ? 2 : 1, claim: null });
    }
    // The first batch is one round; the receiver answered fast, so the second is PIPELINE_DEPTH rounds deep, one at a time.
    const history = await env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).fetchHistory();
    const batches = (history.events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a?.activityType?.name === 'sendBatch')
      .map((a) => JSON.parse(Buffer.from(a!.input!.payloads![0].data!).toString()) as { deliveries: { eventId: string }[]; width: number });
    expect(batches.slice(0, 2).map((b) => [b.deliveries.length, b.width])).toEqual([
      [1, 1],
      [PIPELINE_DEPTH, 1],
    ]);
    // The unsent ones went out in the next batch, after the failure (which waits for its retry).
    expect(batches[2].deliveries.map((d) => d.eventId)).toEqual([refs[3].eventId]);
  });

  it("holds a workspace to its cap across its subscriptions, and wakes a waiting run when room opens", async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('cap');
    const g = gate();
    receiver.respond(path, g.respond);
    const [a, b] = [await createSubscription(ws, { url, maxInFlight: 4 }), await createSubscription(ws, { url, maxInFlight: 4 })];
    const refsA = await deliveries(ws, a.id, 5);
    const refsB = await deliveries(ws, b.id, 5);
    await wake(refsA);
    await vi.waitFor(() => expect(g.held()).toBe(4), 20_000);
    await wake(refsB);
    // B gets only what is left of the cap (6 - 4), and its run waits for the rest.
    await vi.waitFor(() => expect(g.held()).toBe(WORKSPACE_CAP), 20_000);
    await vi.waitFor(async () => expect((await subscriptionRow(b.id)).capWaitingSince).not.toBeNull(), 20_000);
    expect(await env.client.workflow.getHandle(deliveryRunWorkflowId(b.id)).query(stateQuery)).toMatchObject({ inFlight: 2, waitingFor: 'workspace_cap' });

    g.release();
    expect(await runResult(env.client, a.id)).toEqual({ attempted: 5, ended: 'idle' });
    expect(await runResult(env.client, b.id)).toEqual({ attempted: 5, ended: 'idle' });
    expect(g.most()).toBe(WORKSPACE_CAP);
    // Nothing waits for the cap any more.
    expect((await subscriptionRow(b.id)).capWaitingSince).toBeNull();
  });

  it('honours Retry-After in seconds: the next attempt and the other deliveries of the subscription wait for it, and the log says so', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('retry-after');
    let calls = 0;
    receiver.respond(path, () => (++calls === 1 ? { status: 503, headers: { 'retry-after': '600' } } : { status: 200 }));
    // 4: the 503 halves the bound to 2, so both go out together once the Retry-After has passed.
    const sub = await createSubscription(ws, { url, maxInFlight: 4 });
    const [first] = await deliveries(ws, sub.id, 1);
    await wake([first]);
    await vi.waitFor(async () => expect((await subscriptionRow(sub.id)).retryAfterUntil).not.toBeNull(), 20_000);
    const [second] = await deliveries(ws, sub.id, 1);
    await wake([second]);
    expect(await runResult(env.client, sub.id)).toMatchObject({ ended: 'idle' });

    const [failed, retried] = await attemptsOf(first.deliveryId);
    expect(failed).toMatchObject({ status: 'failed', httpStatus: 503 });
    // The schedule says +1 min; the receiver asked for 10.
    expect(retried.attemptedAt.getTime() - failed.attemptedAt.getTime()).toBeGreaterThanOrEqual(600_000);
    const [other] = await attemptsOf(second.deliveryId);
    expect(other.attemptedAt.getTime() - failed.attemptedAt.getTime()).toBeGreaterThanOrEqual(600_000);
    expect(other).toMatchObject({ status: 'succeeded', waitedReason: 'retry_after' });
  });

  it('honours Retry-After as an HTTP date on a 429, and halves the bound in force (AIMD)', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('slow-down');
    let calls = 0;
    const later = async () => new Date((await env.currentTimeMs()) + 3_600_000).toUTCString();
    receiver.respond(path, async () => (++calls === 1 ? { status: 429, headers: { 'retry-after': await later() } } : { status: 200 }));
    const sub = await createSubscription(ws, { url, maxInFlight: 4 });
    const [first] = await deliveries(ws, sub.id, 1);
    await wake([first]);
    await vi.waitFor(async () => expect(await subscriptionRow(sub.id)).toMatchObject({ effectiveInFlight: 2 }), 20_000);
    expect((await subscriptionRow(sub.id)).retryAfterUntil).not.toBeNull();
    expect(await runResult(env.client, sub.id)).toEqual({ attempted: 2, ended: 'idle' });
    const [failed, retried] = await attemptsOf(first.deliveryId);
    // Within a second of the date (HTTP dates have whole seconds).
    expect(retried.attemptedAt.getTime() - failed.attemptedAt.getTime()).toBeGreaterThanOrEqual(3_599_000);
  });

  it('halves the bound in force after an attempt that got no answer (a refused connection), as after a 429, and raises it again with 2xx answers', async () => {
    const ws = await createTestWorkspace();
    // A loopback port that nothing listens on: each attempt is refused, no status.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const sub = await createSubscription(ws, { url: `https://127.0.0.1:${port}/down`, maxInFlight: 4 });
    await wake(await deliveries(ws, sub.id, 3));
    // One batch of three refused attempts: halved once.
    await vi.waitFor(async () => expect((await subscriptionRow(sub.id)).effectiveInFlight).toBe(2), 20_000);

    // The receiver is back (the subscription now points at it) while the run sleeps until the retries
    // (time does not skip until the result is awaited): two attempts at a time at first …
    const { path, url } = hook('back');
    const g = gate();
    receiver.respond(path, () => g.respond());
    await updateSubscription(sub.id, { url });
    await wake(await deliveries(ws, sub.id, 8));
    await vi.waitFor(() => expect(g.held()).toBe(2), 20_000);
    g.release();
    // … then AIMD's +1 per bound's worth of 2xx; the retries go out too, and nothing paused it.
    expect(await runResult(env.client, sub.id)).toMatchObject({ ended: 'idle' });
    expect(g.most()).toBe(2);
    const row = await subscriptionRow(sub.id);
    expect(row.effectiveInFlight === null || row.effectiveInFlight > 2).toBe(true);
    expect(row.pausedAt).toBeNull();
  });

  it('a new maxInFlight reaches a live run whose bound AIMD had lowered: it sends up to the new value at once, and the subscription shows it', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('new-bound');
    let calls = 0;
    let g = gate();
    receiver.respond(path, () => (++calls === 1 ? { status: 429, headers: { 'retry-after': '1' } } : g.respond()));
    const sub = await createSubscription(ws, { url, maxInFlight: 4 });
    await wake(await deliveries(ws, sub.id, 1));
    // The 429 halved the bound: the next ones go two at once.
    await vi.waitFor(async () => expect((await subscriptionRow(sub.id)).effectiveInFlight).toBe(2), 20_000);
    await wake(await deliveries(ws, sub.id, 11));
    await vi.waitFor(() => expect(g.held()).toBe(2), 20_000);

    // Saved as the API saves it: the new maxInFlight, and the bound the subscription shows reset.
    await updateSubscription(sub.id, { maxInFlight: 6, effectiveInFlight: null });
    const first = g;
    g = gate();
    first.release();
    await vi.waitFor(() => expect(g.held()).toBe(6), 20_000);
    expect((await subscriptionRow(sub.id)).effectiveInFlight).toBeNull();
    g.release();
    expect(await runResult(env.client, sub.id)).toMatchObject({ ended: 'idle' });
    expect(g.most()).toBe(6);
  });

  it('strictly ordered: the next event waits for the previous one to succeed (or run out of attempts)', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('strict');
    const fails = new Map<string, number>();
    let firstEvent = '';
    receiver.respond(path, (req) => {
      const id = req.headers['webhook-id'];
      const n = (fails.get(id) ?? 0) + 1;
      fails.set(id, n);
      return id === firstEvent && n <= 2 ? { status: 500 } : { status: 200 };
    });
    const sub = await createSubscription(ws, { url, maxInFlight: 10, ordering: 'strict' });
    const refs = await deliveries(ws, sub.id, 3);
    firstEvent = refs[0].eventId;
    await wake(refs);
    expect(await runResult(env.client, sub.id)).toEqual({ attempted: 5, ended: 'idle' });
    expect(receiver.received(path).map((r) => r.headers['webhook-id'])).toEqual([refs[0], refs[0], refs[0], refs[1], refs[2]].map((r) => r.eventId));
  });

  it('takes in events that join while it sends, in the same run', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('join');
    const sub = await createSubscription(ws, { url, maxInFlight: 2 });
    let joined: DeliveryRef | undefined;
    receiver.respond(path, async () => {
      // While the first is in flight, the next event's delivery is written and the run woken.
      if (!joined) {
        joined = await createDelivery(ws, sub.id);
        await wake([joined]);
      }
      return { status: 200 };
    });
    const [first] = await deliveries(ws, sub.id, 1);
    await wake([first]);
    expect(await runResult(env.client, sub.id)).toEqual({ attempted: 2, ended: 'idle' });
    expect(await deliveryRow(joined!.deliveryId)).toMatchObject({ status: 'succeeded' });
    // One run carried both.
    const run = await env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).describe();
    for (const ref of [first, joined!]) expect((await attemptsOf(ref.deliveryId)).map((a) => a.workflowRunId)).toEqual([run.runId]);
  });

  it('delivers an event that arrives while its run is ending (after its claim found the queue empty)', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('ending');
    receiver.respond(path, { status: 200 });
    const sub = await createSubscription(ws, { url });
    const [first] = await deliveries(ws, sub.id, 1);
    await wake([first]);
    expect(await runResult(env.client, sub.id)).toEqual({ attempted: 1, ended: 'idle' });

    // A wake with nothing new (as a relay that retried a batch sends) starts a run whose claim finds
    // the queue empty; just then the next event is written and the run woken, as the relay does.
    let late: DeliveryRef | undefined;
    afterEmptyClaim.set(sub.id, async () => {
      late = await createDelivery(ws, sub.id);
      await wake([late]);
    });
    await wake([first]);
    const ending = await env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).describe();
    expect(await env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id), ending.runId).result()).toEqual({ attempted: 1, ended: 'idle' });
    expect(afterEmptyClaim.has(sub.id)).toBe(false);
    expect(await deliveryRow(late!.deliveryId)).toMatchObject({ status: 'succeeded', scheduledAttempts: 1 });
    // The run that was ending took it in: no other run was started for it.
    expect((await env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).describe()).runId).toBe(ending.runId);
  });

  it('strictly ordered through the relay: an event whose relay stalled after leasing it goes out before the next one, which another relay wrote first', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('strict-relay');
    receiver.respond(path, { status: 200 });
    const sub = await createSubscription(ws, { url, ordering: 'strict', events: ['ticket.created'] });
    // The outbox holds only this test's two events (the others' were written by fixture, never relayed).
    await prisma.event.updateMany({ where: { relayedAt: null }, data: { relayedAt: new Date() } });
    const [first, second] = [await createEvent(ws), await createEvent(ws)];
    const stalling = createOutboxRelay({ client: env.client, taskQueue, batchSize: 1 });
    const other = createOutboxRelay({ client: env.client, taskQueue, batchSize: 1 });
    let goOn!: () => void;
    const stalled = new Promise<void>((resolve) => (goOn = resolve));
    let reached!: () => void;
    const atStall = new Promise<void>((resolve) => (reached = resolve));
    setInterleaveHook(async (point, about) => {
      if (point !== 'relay:claimed' || about !== first.id) return;
      reached();
      await stalled;
    });
    try {
      // One relay leases the first event and stalls before writing its delivery.
      const relayed = stalling.takeBatch().then((batch) => batch.finish());
      await atStall;
      // The other takes the second, writes its delivery and wakes the run, which claims.
      const claimed = nextClaim(sub.id);
      expect(await other.drain()).toBe(1);
      const claim = await claimed;
      if (claim.deliveries.length) await vi.waitFor(() => expect(receiver.received(path)).toHaveLength(claim.deliveries.length), 20_000);
      goOn();
      await relayed;
    } finally {
      setInterleaveHook(null);
    }
    expect(await runResult(env.client, sub.id)).toMatchObject({ ended: 'idle' });
    expect(receiver.received(path).map((r) => r.headers['webhook-id'])).toEqual([first.id, second.id]);
  });

  it(`continues as new after ${BATCHES_PER_RUN} batches, keeping its search attributes; each attempt names the run that made it; a recorded history replays`, async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('many');
    receiver.respond(path, { status: 204 });
    // Strictly ordered: one delivery a batch.
    const sub = await createSubscription(ws, { url, ordering: 'strict' });
    const refs = await deliveries(ws, sub.id, BATCHES_PER_RUN + 5);
    await wake(refs);
    await runResult(env.client, sub.id);

    const handle = env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id));
    const last = await handle.describe();
    const firstRunId = last.raw.workflowExecutionInfo?.firstRunId ?? '';
    expect(firstRunId).not.toBe(last.runId);
    const first = await env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id), firstRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
    // The run after continue-as-new is found by its subscription and workspace, as the first was.
    for (const run of [first, last]) {
      expect(run.typedSearchAttributes.get(SubscriptionIdKey)).toBe(sub.id);
      expect(run.typedSearchAttributes.get(WorkspaceIdKey)).toBe(String(ws.workspace.id));
    }
    // Every event went out once, in order, and its attempt names the run that sent it.
    expect(receiver.received(path).map((r) => r.headers['webhook-id'])).toEqual(refs.map((r) => r.eventId));
    const runs = await Promise.all(refs.map(async (ref) => (await attemptsOf(ref.deliveryId)).map((a) => a.workflowRunId)));
    expect(runs.slice(0, BATCHES_PER_RUN)).toEqual(refs.slice(0, BATCHES_PER_RUN).map(() => [firstRunId]));
    expect(runs.slice(BATCHES_PER_RUN)).toEqual(refs.slice(BATCHES_PER_RUN).map(() => [last.runId]));

    // The recorded history of the first run replays against today's workflow code without a non-determinism error.
    const history = await env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id), firstRunId).fetchHistory();
    await Worker.runReplayHistory({ workflowsPath: fileURLToPath(new URL('../../../src/webhooks/delivery/workflows.ts', import.meta.url)) }, history, deliveryRunWorkflowId(sub.id));
  });
});
