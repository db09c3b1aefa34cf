// The health numbers of many subscriptions in ONE statement (the settings list shows them for each
// row): attempts and successes in the last 24 hours, the newest attempt and the newest failed one.
// Each part walks the index on ("subscriptionId", "attemptedAt" DESC, "id" DESC) from its newest
// entry, as the delivery log does; only attempts at events the caller sees count (eventVisible).
import { prisma } from '../../db/db.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { eventVisible } from '../../events/event.visibility.ts';

const HEALTH_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface HealthAttempt {
  status: string;
  httpStatus: number | null;
  error: string | null;
  attemptedAt: Date;
  eventType: string;
}

export interface SubscriptionHealth {
  attempts: number;
  succeeded: number;
  lastAttempt: HealthAttempt | null;
  lastFailure: HealthAttempt | null;
}

interface Row {
  id: string;
  attempts: number;
  succeeded: number;
  lastStatus: string | null;
  lastHttpStatus: number | null;
  lastError: string | null;
  lastAt: Date | null;
  lastType: string | null;
  failHttpStatus: number | null;
  failError: string | null;
  failAt: Date | null;
  failType: string | null;
}

/** `boardIds`: the boards the caller sees (null: every board). Subscriptions without attempts answer zeros and nulls. */
export async function healthOf(subscriptionIds: string[], boardIds: string[] | null, now = new Date()): Promise<Map<string, SubscriptionHealth>> {
  if (!subscriptionIds.length) return new Map();
  const since = new Date(now.getTime() - HEALTH_WINDOW_MS).toISOString();
  const visible = boardIds ? Prisma.sql`AND EXISTS (SELECT 1 FROM "Event" e WHERE e."id" = a."eventId" AND ${eventVisible(boardIds)})` : Prisma.empty;
  const rows = await prisma.$queryRaw<Row[]>`
    SELECT s."id", st."attempts", st."succeeded",
           la."status" AS "lastStatus", la."httpStatus" AS "lastHttpStatus", la."error" AS "lastError", la."attemptedAt" AS "lastAt", la."eventType" AS "lastType",
           lf."httpStatus" AS "failHttpStatus", lf."error" AS "failError", lf."attemptedAt" AS "failAt", lf."eventType" AS "failType"
      FROM unnest(${subscriptionIds}::text[]) AS s("id")
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS "attempts", (count(*) FILTER (WHERE a."status" = 'succeeded'))::int AS "succeeded"
          FROM "DeliveryAttempt" a WHERE a."subscriptionId" = s."id" AND a."attemptedAt" >= ${since}::timestamp(3) ${visible}) st
      LEFT JOIN LATERAL (
        SELECT a."status"::text AS "status", a."httpStatus", a."error", a."attemptedAt", a."eventType"
          FROM "DeliveryAttempt" a WHERE a."subscriptionId" = s."id" ${visible}
         ORDER BY a."attemptedAt" DESC, a."id" DESC LIMIT 1) la ON true
      LEFT JOIN LATERAL (
        SELECT a."httpStatus", a."error", a."attemptedAt", a."eventType"
          FROM "DeliveryAttempt" a WHERE a."subscriptionId" = s."id" AND a."status" = 'failed' ${visible}
         ORDER BY a."attemptedAt" DESC, a."id" DESC LIMIT 1) lf ON true`;
  return new Map(
    rows.map((r) => [
      r.id,
      {
        attempts: r.attempts,
        succeeded: r.succeeded,
        lastAttempt: r.lastAt ? { status: r.lastStatus!, httpStatus: r.lastHttpStatus, error: r.lastError, attemptedAt: r.lastAt, eventType: r.lastType! } : null,
        lastFailure: r.failAt ? { status: 'failed', httpStatus: r.failHttpStatus, error: r.failError, attemptedAt: r.failAt, eventType: r.failType! } : null,
      },
    ]),
  );
}
