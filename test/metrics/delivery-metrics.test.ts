// Deliveries made by a real worker (time-skipping server, the real activities, an HTTPS receiver
// on loopback) move the delivery metrics: attempts by outcome and trigger, the attempt duration
// histogram, retries scheduled, settled deliveries and subscriptions paused or disabled.
import { describe, expect, it, vi } from 'vitest';
import { MAX_ATTEMPTS } from '../../src/webhooks/message/schedule.ts';
import type { DeliveryRef } from '../../src/webhooks/delivery/search-attributes.ts';
import { PAUSE_AFTER_FAILURES } from '../../src/webhooks/delivery/delivery.repository.ts';
import { metricsRoutes } from '../../src/http/metrics-endpoint.ts';
import { createTestWorkspace } from '../support/fixtures.ts';
import { useTimeSkippingDeliveryStack } from '../support/delivery-stack.ts';
import { uniqueId } from '../support/temporal.ts';
import { createDelivery, createSubscription, deliveryResult, wakeRunOf } from '../webhooks/fixtures.ts';
import { sample, samples } from './scrape.ts';

const routes = metricsRoutes();
const scrape = async () => samples(await (await routes.fetch(new Request('http://localhost/metrics'))).text());

describe('delivery metrics', () => {
  const stack = useTimeSkippingDeliveryStack({ queue: 'metrics-deliveries', activities: () => ({ mailer: null }) });

  /** A subscription on its own receiver path answering `status`, and the delivery of one new event to it. */
  async function deliveryTo(status: number, subscription: { consecutiveFailures?: number } = {}): Promise<DeliveryRef> {
    const ws = await createTestWorkspace();
    const path = `/${uniqueId(`answers-${status}`)}`;
    stack.receiver.respond(path, { status });
    const sub = await createSubscription(ws, { url: `${stack.receiver.origin}${path}`, ...subscription });
    return await createDelivery(ws, sub.id);
  }
  async function deliver(ref: DeliveryRef) {
    await wakeRunOf(stack.env.client, stack.taskQueue, ref);
    return await deliveryResult(stack.env.client, ref);
  }
  const moved = (before: Map<string, number>, after: Map<string, number>, name: string, labels: Record<string, string> = {}) =>
    sample(after, name, labels) - sample(before, name, labels);

  it('a delivery that succeeds: one attempt, timed, and a delivery settled as succeeded', async () => {
    const ref = await deliveryTo(204);
    const before = await scrape();
    expect(await deliver(ref)).toEqual({ status: 'succeeded', attempt: 1 });
    const after = await scrape();
    expect(moved(before, after, 'webhook_delivery_attempts_total', { outcome: 'succeeded', trigger: 'scheduled' })).toBe(1);
    expect(moved(before, after, 'webhook_delivery_attempt_duration_seconds_count', { outcome: 'succeeded' })).toBe(1);
    expect(moved(before, after, 'webhook_delivery_attempt_duration_seconds_sum', { outcome: 'succeeded' })).toBeGreaterThan(0);
    expect(moved(before, after, 'webhook_delivery_attempt_duration_seconds_bucket', { outcome: 'succeeded', le: '+Inf' })).toBe(1);
    expect(moved(before, after, 'webhook_deliveries_settled_total', { outcome: 'succeeded' })).toBe(1);
    expect(moved(before, after, 'webhook_delivery_retries_scheduled_total')).toBe(0);
  });

  it('a delivery that always fails: every attempt, a retry after each but the last, settled as failed', async () => {
    const ref = await deliveryTo(500);
    const before = await scrape();
    expect(await deliver(ref)).toEqual({ status: 'failed', attempt: MAX_ATTEMPTS });
    const after = await scrape();
    expect(moved(before, after, 'webhook_delivery_attempts_total', { outcome: 'failed', trigger: 'scheduled' })).toBe(MAX_ATTEMPTS);
    expect(moved(before, after, 'webhook_delivery_attempt_duration_seconds_count', { outcome: 'failed' })).toBe(MAX_ATTEMPTS);
    expect(moved(before, after, 'webhook_delivery_retries_scheduled_total')).toBe(MAX_ATTEMPTS - 1);
    expect(moved(before, after, 'webhook_deliveries_settled_total', { outcome: 'failed' })).toBe(1);
  });

  it('410 Gone: the subscription disabled and the delivery cancelled', async () => {
    const ref = await deliveryTo(410);
    const before = await scrape();
    expect(await deliver(ref)).toEqual({ status: 'cancelled', attempt: 1 });
    const after = await scrape();
    expect(moved(before, after, 'webhook_delivery_attempts_total', { outcome: 'gone', trigger: 'scheduled' })).toBe(1);
    expect(moved(before, after, 'webhook_deliveries_settled_total', { outcome: 'cancelled' })).toBe(1);
    expect(moved(before, after, 'webhook_subscription_condition_changes_total', { condition: 'disabled' })).toBe(1);
  });

  it('the failure that pauses a subscription', async () => {
    const ref = await deliveryTo(503, { consecutiveFailures: PAUSE_AFTER_FAILURES - 1 });
    const before = await scrape();
    // Its later attempts are held until a resume: the workflow does not end, so watch the metric.
    await wakeRunOf(stack.env.client, stack.taskQueue, ref);
    const after = await vi.waitFor(async () => {
      const m = await scrape();
      expect(moved(before, m, 'webhook_subscription_condition_changes_total', { condition: 'paused' }), 'the pause').toBe(1);
      return m;
    }, 20_000);
    expect(moved(before, after, 'webhook_delivery_attempts_total', { outcome: 'failed', trigger: 'scheduled' })).toBe(1);
  });
});
