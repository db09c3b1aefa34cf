// The delivery run follows its subscription's retry schedule, on the time-skipping test server with
// a real worker, the real activities, a real HTTPS receiver and the database: a two-attempt
// schedule stops after two and marks the delivery failed; the delays are the schedule's (±10%);
// a change applies from the delivery's next failure on; the log and the backlog show it.
import { describe, expect, it } from 'vitest';
import { RETRY_JITTER } from '../../../src/webhooks/message/schedule.ts';
import type { DeliveryRef } from '../../../src/webhooks/delivery/search-attributes.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { uniqueId } from '../../support/temporal.ts';
import { useTimeSkippingDeliveryStack } from '../../support/delivery-stack.ts';
import { attemptsOf, createDelivery, createSubscription, deliveryResult, deliveryRow, wakeRunOf, updateSubscription } from '../fixtures.ts';

describe('delivery run with a shortened retry schedule (time-skipping)', () => {
  const stack = useTimeSkippingDeliveryStack({ queue: 'retry-schedule', activities: () => ({ mailer: null }) });

  const start = (ref: DeliveryRef) => wakeRunOf(stack.env.client, stack.taskQueue, ref);
  const inBand = (actual: number, nominal: number) => {
    expect(actual).toBeGreaterThanOrEqual(Math.floor(nominal * (1 - RETRY_JITTER)));
    expect(actual).toBeLessThanOrEqual(Math.ceil(nominal * (1 + RETRY_JITTER)));
  };
  const ms = (d: Date | null) => d?.getTime() ?? NaN;
  const hook = (name: string) => {
    const path = `/${uniqueId(name)}`;
    return { path, url: `${stack.receiver.origin}${path}` };
  };

  it('two attempts: stops after the second, marks the delivery failed, and waits the schedule’s delay between them', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('two');
    stack.receiver.respond(path, { status: 503, body: 'down' });
    const sub = await createSubscription(ws, { url, retrySchedule: { delaysSeconds: [120] } });
    const ref = await createDelivery(ws, sub.id);

    await start(ref);
    expect(await deliveryResult(stack.env.client, ref)).toEqual({ status: 'failed', attempt: 2 });
    const attempts = await attemptsOf(ref.deliveryId);
    expect(attempts.map((a) => [a.attempt, a.status, a.httpStatus])).toEqual([
      [1, 'failed', 503],
      [2, 'failed', 503],
    ]);
    inBand(ms(attempts[0].nextAttemptAt) - ms(attempts[0].attemptedAt), 120_000);
    expect(ms(attempts[1].attemptedAt)).toBeGreaterThanOrEqual(ms(attempts[0].nextAttemptAt));
    expect(attempts[1].nextAttemptAt).toBeNull();
    expect(stack.receiver.received(path)).toHaveLength(2);
    expect(await deliveryRow(ref.deliveryId)).toMatchObject({ status: 'failed', attemptCount: 2, nextAttemptAt: null });

    // Shown from outside: the subscription's schedule, the log's "attempt n of 2", an empty backlog.
    const key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
    const read = await api('GET', `/webhooks/${sub.id}`, { key });
    expect(read.body.retrySchedule).toEqual({ delaysSeconds: [120], maxAttempts: 2, spanSeconds: 120, custom: true });
    expect(read.body.backlog).toMatchObject({ pending: 0, inFlight: 0, waitingFor: 'nothing' });
    const log = await api('GET', `/webhooks/${sub.id}/deliveries`, { key });
    expect(log.body.data.map((e: { attempt: number; maxAttempts: number; status: string }) => [e.attempt, e.maxAttempts, e.status])).toEqual([
      [2, 2, 'failed'],
      [1, 2, 'failed'],
    ]);
  });

  it('three attempts with their own delays, the third succeeding', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('three');
    let calls = 0;
    stack.receiver.respond(path, () => (++calls < 3 ? { status: 500 } : { status: 204 }));
    const sub = await createSubscription(ws, { url, retrySchedule: { delaysSeconds: [90, 400] } });
    const ref = await createDelivery(ws, sub.id);

    await start(ref);
    expect(await deliveryResult(stack.env.client, ref)).toEqual({ status: 'succeeded', attempt: 3 });
    const attempts = await attemptsOf(ref.deliveryId);
    expect(attempts.map((a) => a.status)).toEqual(['failed', 'failed', 'succeeded']);
    inBand(ms(attempts[0].nextAttemptAt) - ms(attempts[0].attemptedAt), 90_000);
    inBand(ms(attempts[1].nextAttemptAt) - ms(attempts[1].attemptedAt), 400_000);
    for (const i of [1, 2]) expect(ms(attempts[i].attemptedAt)).toBeGreaterThanOrEqual(ms(attempts[i - 1].nextAttemptAt));
  });

  it('a change applies from the delivery’s next failure on: shortened to one attempt while it waits, it fails at the next one', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('changed');
    const sub = await createSubscription(ws, { url, retrySchedule: { delaysSeconds: [300, 300, 300] } });
    // The schedule changes while the first attempt is out: that failure still follows the old one.
    stack.receiver.respond(path, async () => {
      await updateSubscription(sub.id, { retrySchedule: { delaysSeconds: [] } });
      return { status: 503 };
    });
    const ref = await createDelivery(ws, sub.id);

    await start(ref);
    expect(await deliveryResult(stack.env.client, ref)).toEqual({ status: 'failed', attempt: 2 });
    const attempts = await attemptsOf(ref.deliveryId);
    expect(attempts).toHaveLength(2);
    inBand(ms(attempts[0].nextAttemptAt) - ms(attempts[0].attemptedAt), 300_000);
    expect(attempts[1].nextAttemptAt).toBeNull();
  });

  it('a Retry-After is capped at what remains of the shortened schedule', async () => {
    const ws = await createTestWorkspace();
    const { path, url } = hook('after');
    let calls = 0;
    stack.receiver.respond(path, () => (++calls === 1 ? { status: 429, headers: { 'retry-after': '86400' } } : { status: 200 }));
    const sub = await createSubscription(ws, { url, retrySchedule: { delaysSeconds: [60, 120] } });
    const ref = await createDelivery(ws, sub.id);

    await start(ref);
    expect(await deliveryResult(stack.env.client, ref)).toEqual({ status: 'succeeded', attempt: 2 });
    const [first] = await attemptsOf(ref.deliveryId);
    // A day asked for, 180 s (the schedule's whole span) given.
    expect(ms(first.nextAttemptAt) - ms(first.attemptedAt)).toBe(180_000);
  });
});
