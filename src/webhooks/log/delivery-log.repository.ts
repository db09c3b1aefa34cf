// Data access of the delivery log (GET /webhooks/{id}/deliveries): attempts and waiting deliveries
// newest first, one delivery (for a re-send) and one attempt.
import { prisma } from '../../db/db.ts';
import { Prisma, type DeliveryStatus } from '../../generated/prisma/client.ts';
import { eventVisible } from '../../events/event.visibility.ts';
import type { TimeAndId } from '../../paging/page-keys.ts';
import type { WaitReason } from '../delivery/wait.ts';

/** One line of the delivery log: an attempt, or a delivery not (yet) attempted again (pending, held, cancelled). */
export interface DeliveryLogRow {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  trigger: string;
  status: string;
  httpStatus: number | null;
  durationMs: number | null;
  responseExcerpt: string | null;
  error: string | null;
  payload: string;
  attemptedAt: Date | null;
  nextAttemptAt: Date | null;
  workflowId: string;
  /** The run of that workflow that made the attempt (null: not attempted yet). */
  workflowRunId: string | null;
  /** What the attempt waited for before it went out (the subscription's bound, a Retry-After). */
  waitedReason: WaitReason | null;
  waitedMs: number | null;
  sortAt: Date;
  /** The subscription's scheduled attempts in force (retry-schedule.ts); set by the service. */
  maxAttempts?: number;
  /** A waiting delivery's form (thin-payload.ts): its `payload` is the stored event, shown as it will be sent. Null for attempts, whose payload is the body sent. */
  payloadMode?: string | null;
}

export interface DeliveryLogFilter {
  status?: DeliveryStatus | null;
  eventType?: string | null;
  eventId?: string | null;
  since?: Date | null;
  until?: Date | null;
  /** Keyset position: entries strictly older than this one. */
  after?: TimeAndId | null;
  /** The boards the caller sees; null for every board (see eventVisible). */
  boardIds?: string[] | null;
}
/** The statuses an attempt can have, and those of a delivery the log shows as waiting. */
const ATTEMPT_STATUSES: DeliveryStatus[] = ['succeeded', 'failed'];
const WAITING_STATUSES = ['held', 'cancelled', 'pending'] as const satisfies DeliveryStatus[];

/** The delivery log's attempts (deliveryLog), newest `take` that pass the filter. */
function attemptBranch(subscriptionId: string, filter: DeliveryLogFilter, take: number): Prisma.Sql {
  const where = [Prisma.sql`a."subscriptionId" = ${subscriptionId}`];
  if (filter.status) where.push(Prisma.sql`a."status" = ${filter.status}::"DeliveryStatus"`);
  if (filter.eventType) where.push(Prisma.sql`a."eventType" = ${filter.eventType}`);
  if (filter.eventId) {
    // Through the event's one delivery to this subscription ("Delivery" (eventId, subscriptionId)
    // is unique), then its attempts ("DeliveryAttempt" (deliveryId, attempt)): attempts have no
    // index on "eventId".
    where.push(Prisma.sql`a."eventId" = ${filter.eventId}`);
    where.push(Prisma.sql`a."deliveryId" = (SELECT "id" FROM "Delivery" WHERE "eventId" = ${filter.eventId} AND "subscriptionId" = ${subscriptionId})`);
  }
  if (filter.since) where.push(Prisma.sql`a."attemptedAt" >= ${filter.since}`);
  if (filter.until) where.push(Prisma.sql`a."attemptedAt" < ${filter.until}`);
  if (filter.after) where.push(Prisma.sql`(a."attemptedAt", a."id") < (${filter.after.at}, ${filter.after.id})`);
  if (filter.boardIds) where.push(Prisma.sql`EXISTS (SELECT 1 FROM "Event" e WHERE e."id" = a."eventId" AND ${eventVisible(filter.boardIds)})`);
  return Prisma.sql`(
    SELECT a."id", a."deliveryId", a."eventId", a."eventType", a."attempt", a."trigger"::text AS "trigger",
           a."status"::text AS "status", a."httpStatus", a."durationMs", a."responseExcerpt", a."error", a."payload",
           a."attemptedAt", a."nextAttemptAt", a."workflowId", a."workflowRunId", a."waitedReason", a."waitedMs", a."attemptedAt" AS "sortAt",
           NULL AS "payloadMode"
      FROM "DeliveryAttempt" a
     WHERE ${Prisma.join(where, ' AND ')}
     ORDER BY a."attemptedAt" DESC, a."id" DESC
     LIMIT ${take})`;
}

/** The delivery log's waiting deliveries of one status (a pending one only before its first attempt). */
function waitingBranch(subscriptionId: string, status: (typeof WAITING_STATUSES)[number], filter: DeliveryLogFilter, take: number): Prisma.Sql {
  const where = [Prisma.sql`d."subscriptionId" = ${subscriptionId}`, Prisma.sql`d."status" = ${status}::"DeliveryStatus"`];
  if (status === 'pending') where.push(Prisma.sql`d."attemptCount" = 0`);
  if (filter.eventType) where.push(Prisma.sql`e."type" = ${filter.eventType}`);
  if (filter.eventId) where.push(Prisma.sql`d."eventId" = ${filter.eventId}`);
  if (filter.since) where.push(Prisma.sql`d."updatedAt" >= ${filter.since}`);
  if (filter.until) where.push(Prisma.sql`d."updatedAt" < ${filter.until}`);
  if (filter.after) where.push(Prisma.sql`(d."updatedAt", d."id") < (${filter.after.at}, ${filter.after.id})`);
  if (filter.boardIds) where.push(eventVisible(filter.boardIds));
  return Prisma.sql`(
    SELECT d."id", d."id" AS "deliveryId", d."eventId", e."type" AS "eventType", d."attemptCount" + 1 AS "attempt",
           CASE WHEN e."type" = 'webhook.test' THEN 'test' ELSE 'scheduled' END AS "trigger",
           d."status"::text AS "status", NULL::int AS "httpStatus", NULL::int AS "durationMs", NULL AS "responseExcerpt", NULL AS "error",
           e."payload"::text AS "payload", NULL::timestamp(3) AS "attemptedAt", d."nextAttemptAt", d."workflowId", NULL AS "workflowRunId",
           NULL AS "waitedReason", NULL::int AS "waitedMs", d."updatedAt" AS "sortAt",
           d."payloadMode"
      FROM "Delivery" d JOIN "Event" e ON e."id" = d."eventId"
     WHERE ${Prisma.join(where, ' AND ')}
     ORDER BY d."updatedAt" DESC, d."id" DESC
     LIMIT ${take})`;
}

export const deliveryLogRepository = {
  /**
   * Attempts newest first, with deliveries that have no attempt to show for their current state
   * (held, cancelled, pending before its first attempt). One branch per kind of entry, each
   * filtered, ordered and limited on its own, so that each walks an index from the newest entry
   * (or the cursor) and stops after a page however long the log: the attempts on
   * ("subscriptionId", "attemptedAt" DESC, "id" DESC), the waiting deliveries of each status on
   * ("subscriptionId", "status", "updatedAt", "id"). The page is the newest `take` of their union,
   * which each branch's newest `take` contains. A status filter keeps only the branches that can
   * have it: attempts are only ever succeeded or failed (recordAttempt).
   */
  deliveryLog(subscriptionId: string, filter: DeliveryLogFilter, take: number): Promise<DeliveryLogRow[]> {
    const branches = [
      ...(!filter.status || ATTEMPT_STATUSES.includes(filter.status) ? [attemptBranch(subscriptionId, filter, take)] : []),
      ...WAITING_STATUSES.filter((s) => !filter.status || filter.status === s).map((s) => waitingBranch(subscriptionId, s, filter, take)),
    ];
    if (!branches.length) return Promise.resolve([]);
    return prisma.$queryRaw<DeliveryLogRow[]>`
      SELECT * FROM (${Prisma.join(branches, ' UNION ALL ')}) AS log
      ORDER BY "sortAt" DESC, "id" DESC
      LIMIT ${take}`;
  },

  /** A delivery of the subscription, by its id or the id of one of its attempts, if the caller sees its event (boardIds: eventVisible). */
  async findDelivery(subscriptionId: string, id: string, boardIds: string[] | null) {
    const delivery = await prisma.delivery.findFirst({
      where: { subscriptionId, OR: [{ id }, { attempts: { some: { id } } }] },
      select: { id: true, eventId: true, subscriptionId: true, payloadMode: true, event: { select: { type: true, workspaceId: true, payload: true } } },
    });
    if (!delivery || !boardIds) return delivery;
    const [visible] = await prisma.$queryRaw<{ ok: boolean }[]>`SELECT ${eventVisible(boardIds)} AS "ok" FROM "Event" e WHERE e."id" = ${delivery.eventId}`;
    return visible?.ok ? delivery : null;
  },

  attempt(id: string) {
    return prisma.deliveryAttempt.findUnique({ where: { id } });
  },
};
