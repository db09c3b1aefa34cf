// The gauges read from the database at scrape time. The /metrics endpoint registers them
// (metrics-endpoint.ts), so that only processes serving metrics read the database for them.
import { Gauge, type Registry } from 'prom-client';
import { webhookMetricsRepository, type WebhookState } from './webhook-metrics.repository.ts';

/** A value that could not be read in this time is NaN, rather than a stale or zero one. */
const COLLECT_TIMEOUT_MS = 2_000;

export function registerWebhookGauges(registry: Registry): void {
  // One statement feeds all three gauges of a scrape (and of scrapes that overlap it).
  let inFlight: Promise<WebhookState | null> | undefined;
  const state = () =>
    (inFlight ??= (() => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([
        webhookMetricsRepository.state(),
        new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), COLLECT_TIMEOUT_MS))),
      ])
        .catch(() => null)
        .finally(() => {
          clearTimeout(timer);
          inFlight = undefined;
        });
    })());

  new Gauge({
    name: 'outbox_oldest_unrelayed_event_age_seconds',
    help: 'Age of the oldest event not yet relayed to Temporal (0 when the outbox is empty)',
    registers: [registry],
    async collect() {
      const s = await state();
      this.set(s ? (s.oldestUnrelayedAt ? Math.max(0, (Date.now() - s.oldestUnrelayedAt.getTime()) / 1000) : 0) : NaN);
    },
  });
  new Gauge({
    name: 'outbox_unrelayed_events',
    help: `Events not yet relayed to Temporal (counted up to ${webhookMetricsRepository.COUNT_CAP})`,
    registers: [registry],
    async collect() {
      this.set((await state())?.unrelayedEvents ?? NaN);
    },
  });
  new Gauge({
    name: 'webhook_deliveries_held',
    help: `Deliveries held while their subscription is paused (counted up to ${webhookMetricsRepository.COUNT_CAP})`,
    registers: [registry],
    async collect() {
      this.set((await state())?.heldDeliveries ?? NaN);
    },
  });
}
