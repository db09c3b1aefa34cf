// What the metrics read from the database at scrape time (src/metrics/metrics.ts): one statement,
// each part on an index, counts capped so that a scrape during a long outage stays cheap.
import { prisma } from '../../db/db.ts';

const COUNT_CAP = 100_000;

export interface WebhookState {
  oldestUnrelayedAt: Date | null;
  unrelayedEvents: number;
  heldDeliveries: number;
}

export const webhookMetricsRepository = {
  COUNT_CAP,

  /**
   * The outbox on its ("relayedAt", "seq") index from the NULL end, as the relay claims; held
   * deliveries per subscription on ("subscriptionId", "status", …), since held ones are few and
   * only the subscriptions' index leads to them without reading every delivery.
   */
  async state(): Promise<WebhookState> {
    const [row] = await prisma.$queryRaw<WebhookState[]>`
      SELECT
        (SELECT "occurredAt" FROM "Event" WHERE "relayedAt" IS NULL ORDER BY "relayedAt", "seq" LIMIT 1) AS "oldestUnrelayedAt",
        (SELECT count(*)::int FROM (SELECT 1 FROM "Event" WHERE "relayedAt" IS NULL LIMIT ${COUNT_CAP}) e) AS "unrelayedEvents",
        (SELECT count(*)::int FROM (
           SELECT 1 FROM "WebhookSubscription" s JOIN "Delivery" d ON d."subscriptionId" = s."id" AND d."status" = 'held' LIMIT ${COUNT_CAP}
         ) h) AS "heldDeliveries"`;
    return row;
  },
};
