// Data access of retention: each function deletes at most `limit` rows in one statement (its
// own transaction), so a large backlog is purged in many short transactions that never hold
// many locks for long. The caller loops until a batch comes back short.
import { prisma } from '../db/db.ts';
import { Prisma } from '../generated/prisma/client.ts';

const ts = (at: Date) => at.toISOString();

/** Where the purge of events stopped: the next batch starts after this (relayedAt, seq). */
export interface EventCursor {
  relayedAt: Date;
  seq: bigint;
}

/**
 * Deletes up to `limit` rows of `table` whose `column` is before `at` (`<`; `<=` when `inclusive`),
 * skipping rows another purge holds. `table` and `column` are this file's constants, never input.
 */
function purgeBefore(table: string, column: string, at: Date, limit: number, inclusive = false): Promise<number> {
  const t = Prisma.raw(`"${table}"`);
  return prisma.$executeRaw`
    DELETE FROM ${t} WHERE "id" IN (
      SELECT "id" FROM ${t} WHERE ${Prisma.raw(`"${column}"`)} ${Prisma.raw(inclusive ? '<=' : '<')} ${ts(at)}::timestamp(3) LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
}

export const retentionRepository = {
  /**
   * Finished deliveries (succeeded, failed, cancelled) last changed before `before` and without
   * an attempt since, with their attempts (ON DELETE CASCADE): a delivery goes with its last
   * attempt, so the log never shows a delivery whose attempts are gone. Pending and held
   * deliveries are still being worked on and stay.
   */
  purgeDeliveries(before: Date, limit: number): Promise<number> {
    return prisma.$executeRaw`
      DELETE FROM "Delivery" WHERE "id" IN (
        SELECT d."id" FROM "Delivery" d
         WHERE d."status" IN ('succeeded', 'failed', 'cancelled') AND d."updatedAt" < ${ts(before)}::timestamp(3)
           AND NOT EXISTS (SELECT 1 FROM "DeliveryAttempt" a WHERE a."deliveryId" = d."id" AND a."attemptedAt" >= ${ts(before)}::timestamp(3))
         LIMIT ${limit}
         FOR UPDATE SKIP LOCKED)`;
  },

  /** Attempts older than `before` of deliveries that stay (a newer attempt, or still pending or held). */
  purgeAttempts(before: Date, limit: number): Promise<number> {
    return prisma.$executeRaw`
      DELETE FROM "DeliveryAttempt" WHERE "id" IN (
        SELECT "id" FROM "DeliveryAttempt" WHERE "attemptedAt" < ${ts(before)}::timestamp(3)
         LIMIT ${limit}
         FOR UPDATE SKIP LOCKED)`;
  },

  /**
   * Events relayed before `before` that no delivery refers to any more, taken in (relayedAt, seq)
   * order from `after` on. Unrelayed events (relayedAt NULL) are never candidates. Returns the
   * position of the last candidate looked at, so the next batch does not look at events kept
   * for their deliveries again; null when there were no more candidates.
   */
  async purgeEvents(before: Date, after: EventCursor | null, limit: number): Promise<{ deleted: number; next: EventCursor | null; scanned: number }> {
    const from = after ?? { relayedAt: new Date(0), seq: -1n };
    const [row] = await prisma.$queryRaw<{ deleted: bigint; scanned: bigint; relayedAt: Date | null; seq: bigint | null }[]>`
      WITH candidate AS (
        SELECT "id", "relayedAt", "seq" FROM "Event"
         WHERE "relayedAt" IS NOT NULL AND "relayedAt" < ${ts(before)}::timestamp(3)
           AND ("relayedAt", "seq") > (${ts(from.relayedAt)}::timestamp(3), ${from.seq}::bigint)
         ORDER BY "relayedAt", "seq"
         LIMIT ${limit}
      ), gone AS (
        DELETE FROM "Event" e USING candidate c
         WHERE e."id" = c."id" AND NOT EXISTS (SELECT 1 FROM "Delivery" d WHERE d."eventId" = e."id")
        RETURNING e."id"
      ), last AS (
        SELECT "relayedAt", "seq" FROM candidate ORDER BY "relayedAt" DESC, "seq" DESC LIMIT 1
      )
      SELECT (SELECT count(*) FROM gone) AS "deleted", (SELECT count(*) FROM candidate) AS "scanned",
             (SELECT "relayedAt" FROM last) AS "relayedAt", (SELECT "seq" FROM last) AS "seq"`;
    const next = row.relayedAt && row.seq !== null ? { relayedAt: row.relayedAt, seq: BigInt(row.seq) } : null;
    return { deleted: Number(row.deleted), scanned: Number(row.scanned), next };
  },

  /** Notifications read before `before`; unread ones stay however old. */
  purgeReadNotifications(before: Date, limit: number): Promise<number> {
    return purgeBefore('Notification', 'readAt', before, limit);
  },

  /** Sessions past their absolute lifetime (already refused at sign-in time checks). */
  purgeExpiredSessions(now: Date, limit: number): Promise<number> {
    return purgeBefore('Session', 'expiresAt', now, limit, true);
  },

  /** Audit log entries that occurred before `before` (the index on "occurredAt" finds them). */
  purgeAuditEntries(before: Date, limit: number): Promise<number> {
    return purgeBefore('AuditEntry', 'occurredAt', before, limit);
  },

  /** Idempotency records past their 24 hours (an expired record no longer answers a repeat). */
  purgeExpiredIdempotencyRecords(now: Date, limit: number): Promise<number> {
    return purgeBefore('IdempotencyRecord', 'expiresAt', now, limit, true);
  },
};
