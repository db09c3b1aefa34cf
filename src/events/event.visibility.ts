// Which events a caller sees: the one rule the delivery log, the statistics, health and recovery
// apply to the events behind their rows (authorisation per object, decided in SQL at read time).
import { Prisma } from '../generated/prisma/client.ts';

/**
 * Whether the caller may see the event `e` (authorisation per object, at read time): a ticket's
 * event when it sees the ticket's board (its current one; the event's own once the ticket is
 * gone); an operational event when its role opens the subscription the event is about (every one
 * of that subscription's boards, as now: the event shows its URL and the ids of its deliveries);
 * an event about neither (webhook.test) always. The receiving subscription's boards are not the
 * rule: they may have changed since the event.
 */
export function eventVisible(boardIds: string[] | null | undefined, e = Prisma.sql`e`): Prisma.Sql {
  if (!boardIds) return Prisma.sql`true`;
  return Prisma.sql`(CASE WHEN ${e}."aboutSubscriptionId" IS NOT NULL THEN EXISTS (
      SELECT 1 FROM "WebhookSubscription" s
       WHERE s."id" = ${e}."aboutSubscriptionId" AND cardinality(s."boardIds") > 0 AND s."boardIds" <@ ${boardIds}::text[])
    ELSE (COALESCE((SELECT t."boardId" FROM "Ticket" t WHERE t."id" = ${e}."ticketId"), ${e}."boardId") IS NULL
      OR COALESCE((SELECT t."boardId" FROM "Ticket" t WHERE t."id" = ${e}."ticketId"), ${e}."boardId") = ANY(${boardIds}::text[])) END)`;
}
