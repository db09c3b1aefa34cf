// Data access of recovery: which deliveries of a subscription to re-send for a time window, and the
// subscription's one place for a running recovery.
import { prisma } from '../../db/db.ts';
import { eventVisible } from '../../events/event.visibility.ts';

export interface RecoverCandidate {
  id: string;
  /** Event.seq as a string (a bigint): the paging cursor. */
  seq: string;
}

export const recoverRepository = {
  /**
   * Deliveries with a failed attempt in [since, until) whose latest attempt failed (nothing got
   * through since), in event order after `afterSeq`. Deliveries that succeeded once are left out
   * even if a later manual attempt failed (the receiver has them), and so are `held` ones (the
   * release after a resume sends those). Judged when each page is read, so a delivery that a
   * scheduled retry got through meanwhile is not sent again. Only deliveries of events seen by
   * the caller who asked (`boardIds`, eventVisible).
   */
  async failedInWindow(subscriptionId: string, since: Date, until: Date, afterSeq: string | null, limit: number, boardIds: string[] | null = null): Promise<RecoverCandidate[]> {
    return prisma.$queryRaw<RecoverCandidate[]>`
      SELECT d."id", e."seq"::text AS "seq"
      FROM "Delivery" d
      JOIN "Event" e ON e."id" = d."eventId"
      WHERE d."subscriptionId" = ${subscriptionId}
        AND d."status" IN ('pending', 'failed', 'cancelled')
        AND (${afterSeq}::bigint IS NULL OR e."seq" > ${afterSeq}::bigint)
        AND ${eventVisible(boardIds)}
        AND EXISTS (
          SELECT 1 FROM "DeliveryAttempt" a
          WHERE a."deliveryId" = d."id" AND a."status" = 'failed'
            AND a."attemptedAt" >= ${since.toISOString()}::timestamp(3) AND a."attemptedAt" < ${until.toISOString()}::timestamp(3)
        )
        AND (
          SELECT l."status" FROM "DeliveryAttempt" l WHERE l."deliveryId" = d."id" ORDER BY l."attemptedAt" DESC, l."id" DESC LIMIT 1
        ) = 'failed'
      ORDER BY e."seq"
      LIMIT ${limit}`;
  },
  /**
   * Takes the subscription's place for a running recovery for `workflowId` when it is free, its
   * own already, or held by `replacing` (a recovery found not running). Answers who holds it now
   * (null: nobody, it was given up meanwhile).
   */
  async takePlace(subscriptionId: string, workflowId: string, replacing: string | null): Promise<string | null> {
    const taken = await prisma.$executeRaw`
      UPDATE "WebhookSubscription" SET "runningRecovery" = ${workflowId}
       WHERE "id" = ${subscriptionId} AND ("runningRecovery" IS NULL OR "runningRecovery" IN (${workflowId}, ${replacing ?? workflowId}))`;
    if (taken) return workflowId;
    const [row] = await prisma.$queryRaw<{ holder: string | null }[]>`SELECT "runningRecovery" AS "holder" FROM "WebhookSubscription" WHERE "id" = ${subscriptionId}`;
    return row?.holder ?? null;
  },

  /** Gives the place up, if `workflowId` still holds it. */
  async givePlaceUp(subscriptionId: string, workflowId: string): Promise<void> {
    await prisma.$executeRaw`UPDATE "WebhookSubscription" SET "runningRecovery" = NULL WHERE "id" = ${subscriptionId} AND "runningRecovery" = ${workflowId}`;
  },
};
