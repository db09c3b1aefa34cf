// Which events a caller sees: the one rule the delivery log, the statistics, health and recovery
// apply to the events behind their rows (authorisation per object, decided in SQL at read time).
import { Prisma } from '../generated/prisma/client.ts';

/**
 * Whether the caller may see the event `e` (authorisation per object, at read time): a ticket's
 * event when it sees the ticket's board (its current one; the event's own once the ticket is
 * gone); an operational event when its role sees every board the subscription it is about had
 * when the event was written (`aboutBoardIds`; none: every board, so only a role that sees every
 * board: the event shows that subscription's URL and the ids of its deliveries); an event about
 * neither (webhook.test) always. The receiving subscription's boards are not the rule: they may
 * have changed since the event.
 */
export function eventVisible(boardIds: string[] | null | undefined, e = Prisma.sql`e`): Prisma.Sql {
  if (!boardIds) return Prisma.sql`true`;
  return Prisma.sql`(CASE WHEN ${e}."aboutSubscriptionId" IS NOT NULL THEN cardinality(${e}."aboutBoardIds") > 0 AND ${e}."aboutBoardIds" <@ ${boardIds}::text[]
    ELSE (COALESCE((SELECT t."boardId" FROM "Ticket" t WHERE t."id" = ${e}."ticketId"), ${e}."boardId") IS NULL
      OR COALESCE((SELECT t."boardId" FROM "Ticket" t WHERE t."id" = ${e}."ticketId"), ${e}."boardId") = ANY(${boardIds}::text[])) END)`;
}
