// The per-event workflow and the per-subscription bounds on the time-skipping test server, with
// a real worker (only 4 activity slots, so that a saturated subscription would show) running the
// real activities against a real HTTPS receiver and the database. No timing assertions: what is
// checked is what the receiver saw at once, the order of things, and the log.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { releaseHeldDeliveries, startEventDelivery } from '../../workflows/delivery/client.ts';
import { eventWorkflowId } from '../../workflows/delivery/ids.ts';
import { RETRY_DELAYS_MS, RETRY_JITTER } from '../../workflows/delivery/schedule.ts';
import type { DeliveryRef } from '../../workflows/delivery/search-attributes.ts';
import type { deliverEventWorkflow } from '../../workflows/delivery/workflows.ts';
import { deliveryRepository } from '../../src/webhooks/delivery.repository.ts';
import { prisma } from '../../src/db/db.ts';
import { createTestWorkspace } from '../support/fixtures.ts';
import { uniqueId } from '../support/temporal.ts';
import { startTimeSkippingDeliveryStack } from '../support/delivery-stack.ts';
import { attemptsOf, createDelivery, createEvent, createSubscription, deliveryResult, deliveryRow, startDelivery, subscriptionRow, updateSubscription } from './fixtures.ts';
import { createTestCa, startReceiver, type Answer, type Receiver } from './receiver.ts';

const ACTIVITY_SLOTS = 4;

describe('per-event workflow and per-subscription bounds (time-skipping)', { timeout: 120_000 }, () => {
  let env: TestWorkflowEnvironment;
  let receiver: Receiver;
  let taskQueue: string;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const tls = createTestCa();
    receiver = await startReceiver(tls);
    ({ env, taskQueue, stop } = await startTimeSkippingDeliveryStack({
      queue: 'bounds',
      tls,
      activitySlots: ACTIVITY_SLOTS,
      activities: (server) => ({ client: server.client, mailer: null, timeoutMs: 60_000 }),
    }));
  }, 120_000);

  afterAll(async () => {
    await stop?.();
    await receiver?.close();
  }, 60_000);

  const hook = (name: string) => ({ path: `/${name}`, url: `${receiver.origin}/${name}` });
  const ms = (d: Date | null) => d?.getTime() ?? NaN;

  /** A responder that counts the requests it is answering at once (the receiver's view of the bound). */
  function counting(answer: () => Promise<Answer>) {
    const stats = { now: 0, max: 0 };
    const responder = async () => {
      stats.now += 1;
      stats.max = Math.max(stats.max, stats.now);
      try {
        return await answer();
      } finally {
        stats.now -= 1;
      }
    };
    return { stats, responder };
  }

  it('one workflow per event delivers to each subscription on its own schedule, holding and releasing per subscription', async () => {
    const ws = await createTestWorkspace();
    const ok = hook(uniqueId('ok'));
    const paused = hook(uniqueId('paused'));
    const flaky = hook(uniqueId('flaky'));
    receiver.respond(ok.path, { status: 204 });
    receiver.respond(paused.path, { status: 200 });
    let flakyCalls = 0;
    receiver.respond(flaky.path, () => (++flakyCalls === 1 ? { status: 500 } : { status: 200 }));
    const subs = [
      await createSubscription(ws, { url: ok.url }),
      await createSubscription(ws, { url: paused.url, condition: 'paused' }),
      await createSubscription(ws, { url: flaky.url }),
    ];
    const event = await createEvent(ws);
    const deliveries: { deliveryId: string; subscriptionId: string }[] = [];
    for (const s of subs) deliveries.push({ deliveryId: (await deliveryRepository.create(event.id, s.id)).id, subscriptionId: s.id });
    const input = { eventId: event.id, eventType: event.type, workspaceId: ws.workspace.id, deliveries };

    const workflowId = await startEventDelivery(env.client, taskQueue, input);
    expect(workflowId).toBe(eventWorkflowId(event.id));
    // A relay that retries starts nothing new.
    expect(await startEventDelivery(env.client, taskQueue, input)).toBe(workflowId);

    await expect.poll(async () => (await deliveryRow(deliveries[1]!.deliveryId)).status, { timeout: 20_000, message: 'the paused subscription’s delivery held' }).toBe('held');
    await expect.poll(async () => (await deliveryRow(deliveries[0]!.deliveryId)).status, { timeout: 20_000, message: 'the first subscription’s delivery' }).toBe('succeeded');
    await expect.poll(async () => (await deliveryRow(deliveries[2]!.deliveryId)).attemptCount, { timeout: 20_000, message: 'the failed first attempt' }).toBe(1);
    await env.sleep('2 minutes');
    await expect.poll(async () => (await deliveryRow(deliveries[2]!.deliveryId)).status, { timeout: 20_000, message: 'the retry, on its own schedule' }).toBe('succeeded');
    expect(receiver.received(paused.path)).toHaveLength(0);

    // Resuming the paused subscription releases its delivery in the event's workflow.
    await deliveryRepository.resume(subs[1]!.id);
    const release = await releaseHeldDeliveries(env.client, taskQueue, subs[1]!.id);
    expect(await env.client.workflow.getHandle(release).result()).toEqual({ released: 1, skipped: [] });
    const outcome = await env.client.workflow.getHandle<typeof deliverEventWorkflow>(workflowId).result();
    expect(outcome.deliveries).toEqual([
      { ...deliveries[0], status: 'succeeded', attempt: 1 },
      { ...deliveries[1], status: 'succeeded', attempt: 1 },
      { ...deliveries[2], status: 'succeeded', attempt: 2 },
    ]);
    for (const p of [ok.path, paused.path]) expect(receiver.received(p).map((r) => r.headers['webhook-id'])).toEqual([event.id]);
    expect(receiver.received(flaky.path)).toHaveLength(2);
  });

  it('never has more attempts in flight than the subscription’s bound under a burst, and lets waiting ones through oldest event first', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook(uniqueId('bounded'));
    const { stats, responder } = counting(async () => {
      await new Promise((r) => setTimeout(r, 200));
      return { status: 200 };
    });
    receiver.respond(path, responder);
    const sub = await createSubscription(ws, { url, maxInFlight: 3 });
    const refs: DeliveryRef[] = [];
    for (let i = 0; i < 12; i++) refs.push(await createDelivery(ws, sub.id));
    await Promise.all(refs.map((r) => startDelivery(env.client, taskQueue, r)));
    for (const r of refs) expect(await deliveryResult(env.client, r)).toEqual({ status: 'succeeded', attempt: 1 });

    expect(stats.max).toBeLessThanOrEqual(3);
    expect(receiver.received(path)).toHaveLength(12);
    // Those that waited say so in the log, and waiting used none of their attempts.
    const attempts = (await Promise.all(refs.map((r) => attemptsOf(r.deliveryId)))).flat();
    expect(attempts.every((a) => a.attempt === 1)).toBe(true);
    const waited = attempts.filter((a) => a.waitedReason !== null);
    expect(waited.length).toBeGreaterThan(0);
    expect(new Set(waited.map((a) => a.waitedReason))).toEqual(new Set(['in_flight_bound']));
    // Nothing is left holding or waiting for a slot.
    expect(await prisma.deliverySlot.count({ where: { subscriptionId: sub.id } })).toBe(0);
  });

  it('a subscription saturated by a receiver that hangs holds no more than its bound: another subscription’s deliveries go on', async () => {
    const ws = await createTestWorkspace();
    const slow = hook(uniqueId('hanging'));
    const fast = hook(uniqueId('fast'));
    let letGo!: () => void;
    const hanging = new Promise<void>((resolve) => (letGo = resolve));
    const { stats, responder } = counting(async () => {
      await hanging;
      return { status: 200 };
    });
    receiver.respond(slow.path, responder);
    receiver.respond(fast.path, { status: 200 });
    const saturated = await createSubscription(ws, { url: slow.url, maxInFlight: 2 });
    const other = await createSubscription(ws, { url: fast.url });

    // Twice as many deliveries as the worker has activity slots.
    const stuck: DeliveryRef[] = [];
    for (let i = 0; i < 2 * ACTIVITY_SLOTS; i++) stuck.push(await createDelivery(ws, saturated.id));
    await Promise.all(stuck.map((r) => startDelivery(env.client, taskQueue, r)));
    await expect.poll(() => receiver.received(slow.path).length, { timeout: 20_000, message: 'the bound’s worth of hanging requests' }).toBe(2);
    await expect.poll(() => prisma.deliverySlot.count({ where: { subscriptionId: saturated.id, state: 'waiting' } }), { timeout: 20_000, message: 'the others waiting' }).toBe(stuck.length - 2);

    try {
      for (let i = 0; i < 3; i++) {
        const ref = await createDelivery(ws, other.id);
        await startDelivery(env.client, taskQueue, ref);
        expect(await deliveryResult(env.client, ref)).toEqual({ status: 'succeeded', attempt: 1 });
      }
      expect(receiver.received(fast.path)).toHaveLength(3);
      expect(receiver.received(slow.path)).toHaveLength(2);
    } finally {
      letGo();
    }
    for (const r of stuck) expect(await deliveryResult(env.client, r)).toEqual({ status: 'succeeded', attempt: 1 });
    expect(stats.max).toBeLessThanOrEqual(2);
    expect(new Set(receiver.received(slow.path).map((r) => r.headers['webhook-id']))).toEqual(new Set(stuck.map((r) => r.eventId)));
  });

  it('honours Retry-After in seconds: the next attempt and the subscription’s other deliveries wait for it, and the log says so', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook(uniqueId('retry-after-seconds'));
    let calls = 0;
    receiver.respond(path, () => (++calls === 1 ? { status: 503, headers: { 'retry-after': '3600' } } : { status: 200 }));
    const sub = await createSubscription(ws, { url, maxInFlight: 10 });
    const first = await createDelivery(ws, sub.id);
    await startDelivery(env.client, taskQueue, first);
    await expect.poll(async () => (await deliveryRow(first.deliveryId)).attemptCount, { timeout: 20_000, message: 'the 503' }).toBe(1);
    // The slot is released (with what the answer says) just after the attempt is recorded.
    const row = await vi.waitFor(async () => {
      const r = await subscriptionRow(sub.id);
      expect(r.retryAfterUntil, 'the Retry-After recorded').not.toBeNull();
      return r;
    }, 20_000);
    const [failed] = await attemptsOf(first.deliveryId);
    expect(ms(failed!.nextAttemptAt) - ms(failed!.attemptedAt)).toBe(3_600_000);
    expect(ms(row.retryAfterUntil)).toBe(ms(failed!.attemptedAt) + 3_600_000);
    // 503 lowered the bound too (AIMD): 10 → 5.
    expect(row.inFlightBound).toBe(5);

    // A new event for the subscription meanwhile does not go out before that time either.
    const second = await createDelivery(ws, sub.id);
    await startDelivery(env.client, taskQueue, second);
    expect(await deliveryResult(env.client, first)).toEqual({ status: 'succeeded', attempt: 2 });
    expect(await deliveryResult(env.client, second)).toEqual({ status: 'succeeded', attempt: 1 });
    const [, retried] = await attemptsOf(first.deliveryId);
    const [secondAttempt] = await attemptsOf(second.deliveryId);
    for (const a of [retried!, secondAttempt!]) expect(ms(a.attemptedAt)).toBeGreaterThanOrEqual(ms(row.retryAfterUntil));
    expect(retried!.waitedReason).toBe('retry_after');
    // What the Retry-After added beyond the jittered one-minute delay.
    expect(retried!.waitedMs).toBeGreaterThanOrEqual(3_600_000 - RETRY_DELAYS_MS[0] * (1 + RETRY_JITTER));
    expect(retried!.waitedMs).toBeLessThanOrEqual(3_600_000 - RETRY_DELAYS_MS[0] * (1 - RETRY_JITTER));
    expect(secondAttempt!.waitedReason).toBe('retry_after');
    expect(receiver.received(path)).toHaveLength(3);
  });

  it('honours Retry-After as an HTTP date on a 429', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook(uniqueId('retry-after-date'));
    let calls = 0;
    let asked = 0;
    receiver.respond(path, async () => {
      if (++calls > 1) return { status: 200 };
      asked = Math.floor((await env.currentTimeMs()) / 1000) * 1000 + 2 * 3_600_000;
      return { status: 429, headers: { 'retry-after': new Date(asked).toUTCString() } };
    });
    const sub = await createSubscription(ws, { url });
    const ref = await createDelivery(ws, sub.id);
    await startDelivery(env.client, taskQueue, ref);
    expect(await deliveryResult(env.client, ref)).toEqual({ status: 'succeeded', attempt: 2 });
    const [failed, retried] = await attemptsOf(ref.deliveryId);
    expect(failed!.httpStatus).toBe(429);
    expect(ms(failed!.attemptedAt) + ms(failed!.nextAttemptAt) - ms(failed!.attemptedAt)).toBe(asked);
    expect(ms(retried!.attemptedAt)).toBeGreaterThanOrEqual(asked);
    expect(retried!.waitedReason).toBe('retry_after');
  });

  it('lowers the bound on 429 and raises it back with 2xx answers (AIMD)', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook(uniqueId('aimd'));
    let calls = 0;
    receiver.respond(path, () => (++calls === 1 ? { status: 429 } : { status: 200 }));
    const sub = await createSubscription(ws, { url, maxInFlight: 4 });
    const deliver = async () => {
      const ref = await createDelivery(ws, sub.id);
      await startDelivery(env.client, taskQueue, ref);
      return await deliveryResult(env.client, ref);
    };
    const first = await createDelivery(ws, sub.id);
    await startDelivery(env.client, taskQueue, first);
    await expect.poll(async () => (await deliveryRow(first.deliveryId)).attemptCount, { timeout: 20_000, message: 'the 429' }).toBe(1);
    const lowered = await vi.waitFor(async () => {
      const r = await subscriptionRow(sub.id);
      expect(r.inFlightBound, 'the lowered bound').not.toBeNull();
      return r;
    }, 20_000);
    expect(lowered.inFlightBound).toBe(2);
    expect(await deliveryResult(env.client, first)).toEqual({ status: 'succeeded', attempt: 2 });
    // Two 2xx at bound 2 raise it to 3; three more at 3 bring it back to the setting.
    expect(await deliver()).toEqual({ status: 'succeeded', attempt: 1 });
    expect((await subscriptionRow(sub.id)).inFlightBound).toBe(3);
    for (let i = 0; i < 3; i++) await deliver();
    expect((await subscriptionRow(sub.id)).inFlightBound).toBeNull();
  });

  it('spaces attempts by the subscription’s rate', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook(uniqueId('rate'));
    receiver.respond(path, { status: 200 });
    // One attempt per 100 s.
    const sub = await createSubscription(ws, { url, ratePerSecond: 0.01 });
    const refs: DeliveryRef[] = [];
    for (let i = 0; i < 3; i++) refs.push(await createDelivery(ws, sub.id));
    await Promise.all(refs.map((r) => startDelivery(env.client, taskQueue, r)));
    for (const r of refs) expect(await deliveryResult(env.client, r)).toEqual({ status: 'succeeded', attempt: 1 });
    const attempts = (await Promise.all(refs.map(async (r) => (await attemptsOf(r.deliveryId))[0]!))).sort((a, b) => ms(a.attemptedAt) - ms(b.attemptedAt));
    // The k-th start at least k periods after the first (each start reserves the next free time).
    for (let i = 1; i < attempts.length; i++) expect(ms(attempts[i]!.attemptedAt) - ms(attempts[0]!.attemptedAt)).toBeGreaterThanOrEqual(i * 100_000);
    expect(attempts.filter((a) => a.waitedReason === 'rate')).toHaveLength(2);
    await updateSubscription(sub.id, { ratePerSecond: null });
  });
});
