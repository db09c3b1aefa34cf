// Data access of manual requests: a re-send or a recovery asks for a manual attempt of a delivery by
// writing its workflow id on the delivery (`manualRequests`); the subscription's delivery run sends
// it (queue.repository.ts claims it with the due deliveries) and answers the workflow. What a
// workflow that got no answer finds here instead (`state`): a run's answer can only be missing
// when the delivery was deleted meanwhile, or the run was terminated before its next claim.
import { prisma } from '../../db/db.ts';
import { MANUAL_REQUESTS_PER_DELIVERY } from './constants.ts';
import type { AttemptResult } from './signals.ts';

export const manualRepository = {
  /**
   * Asks for a manual attempt of each delivery of the subscription for `requester` (a workflow id),
   * joining the requests already waiting on it. Answers the deliveries asked for (or asked for
   * before: a retried call adds nothing, nor does one whose request was already answered with an
   * attempt), and those refused because MANUAL_REQUESTS_PER_DELIVERY wait on them already. A
   * delivery of another subscription, or none, is in neither.
   */
  async request(subscriptionId: string, deliveryIds: string[], requester: string, at: Date): Promise<{ asked: string[]; full: string[] }> {
    if (!deliveryIds.length) return { asked: [], full: [] };
    const rows = await prisma.$queryRaw<{ id: string; asked: boolean }[]>`
      WITH target AS (
        SELECT d."id",
               ${requester} = ANY(d."manualRequests")
                 OR EXISTS (SELECT 1 FROM "DeliveryAttempt" a WHERE a."deliveryId" = d."id" AND a."workflowId" = ${requester}) AS "before",
               cardinality(d."manualRequests") AS "waiting"
          FROM "Delivery" d WHERE d."id" = ANY(${deliveryIds}::text[]) AND d."subscriptionId" = ${subscriptionId}
           FOR UPDATE
      ), added AS (
        UPDATE "Delivery" d SET "manualRequests" = array_append(d."manualRequests", ${requester}),
                                "manualRequestedAt" = COALESCE(d."manualRequestedAt", ${at.toISOString()}::timestamp(3)),
                                "updatedAt" = ${at.toISOString()}::timestamp(3)
          FROM target t WHERE d."id" = t."id" AND NOT t."before" AND t."waiting" < ${MANUAL_REQUESTS_PER_DELIVERY}::int
        RETURNING d."id"
      )
      SELECT t."id", t."before" OR t."id" IN (SELECT "id" FROM added) AS "asked" FROM target t`;
    return { asked: rows.filter((r) => r.asked).map((r) => r.id), full: rows.filter((r) => !r.asked).map((r) => r.id) };
  },

  /**
   * For a requester that got no answer: `waiting` while its request still waits on the delivery,
   * else what came of it: the first manual attempt since it asked (its own first), or, without one,
   * `held` (the subscription is paused) or `cancelled` (deleted, disabled). No result and not
   * waiting: the delivery no longer exists.
   */
  async state(requester: string, deliveryIds: string[], since: Date): Promise<{ deliveryId: string; waiting: boolean; result?: AttemptResult }[]> {
    const rows = await prisma.$queryRaw<{ id: string; waiting: boolean; paused: boolean; attemptId: string | null; attempt: number | null; status: string | null; httpStatus: number | null }[]>`
      SELECT d."id", ${requester} = ANY(d."manualRequests") AS "waiting", s."condition" = 'paused' AND s."deletedAt" IS NULL AS "paused",
             a."id" AS "attemptId", a."attempt", a."status"::text AS "status", a."httpStatus"
        FROM "Delivery" d
        JOIN "WebhookSubscription" s ON s."id" = d."subscriptionId"
        LEFT JOIN LATERAL (
          SELECT "id", "attempt", "status", "httpStatus" FROM "DeliveryAttempt"
           WHERE "deliveryId" = d."id" AND "trigger" = 'manual' AND "attemptedAt" >= ${since.toISOString()}::timestamp(3)
           ORDER BY ("workflowId" = ${requester}) DESC, "attemptedAt", "id" LIMIT 1) a ON true
       WHERE d."id" = ANY(${deliveryIds}::text[])`;
    const found = new Map(rows.map((r) => [r.id, r]));
    return deliveryIds.map((deliveryId) => {
      const r = found.get(deliveryId);
      if (!r) return { deliveryId, waiting: false };
      if (r.waiting) return { deliveryId, waiting: true };
      if (r.attemptId === null) return { deliveryId, waiting: false, result: { outcome: r.paused ? 'held' : 'cancelled' } };
      const outcome = r.status === 'succeeded' ? 'succeeded' : r.httpStatus === 410 ? 'cancelled' : 'failed';
      return { deliveryId, waiting: false, result: { outcome, attemptId: r.attemptId, attempt: r.attempt!, httpStatus: r.httpStatus } };
    });
  },
};
