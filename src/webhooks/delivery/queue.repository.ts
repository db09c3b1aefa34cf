// Data access of the delivery run's queue: a subscription's pending deliveries (the `Delivery`
// rows, in event order) and the claims that mark the ones in flight. The run is the only claimer
// of its subscription's rows; the workspace's cap is decided under a lock on the workspace's row,
// so runs of one workspace claim one after the other and never pass it together.
import { prisma } from '../../db/db.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { WAITED_AT_LEAST_MS } from './constants.ts';
import { interleave } from './interleave.ts';
import { subscriptionSettings, type RunStop, type SubscriptionSettings } from './run-state.ts';
import type { ManualAnswer } from './signals.ts';
import type { WaitReason } from './wait.ts';


const MAX_WAITED_MS = 2 ** 31 - 1;

export interface ClaimInput {
  subscriptionId: string;
  workspaceId: number;
  /** The run's id: claims of any other run of the subscription are stale (that run has ended). */
  runId: string;
  /** This claim's token, `<runId>:<call>`. */
  token: string;
  /** How many the run may take given its subscription's settings (its bound, rate), and what limits it. */
  limitFor: (settings: SubscriptionSettings) => { limit: number; limitedBy: WaitReason | null };
  /** The workspace's in-flight cap. */
  workspaceCap: number;
  /** A subscription's maxInFlight at most (WEBHOOK_MAX_IN_FLIGHT_LIMIT). */
  maxInFlightLimit: number;
  /** Attempts the run's batches may have open at once (0: none in flight). */
  open: number;
  /** The run's first claim: claims of earlier runs are freed. */
  first: boolean;
  now: Date;
  /** What the run last waited for, for the log of the deliveries that went out late. */
  waitedFor: WaitReason | null;
}

export interface ClaimedDelivery {
  id: string;
  eventId: string;
  /** The scheduled attempt's number (1..7); a manual attempt's number continues the delivery's count when it is recorded. */
  attempt: number;
  waited: { reason: WaitReason; ms: number } | null;
  /** A manual attempt: the workflows that asked for it (a re-send's, a recovery's), oldest first. Absent: the scheduled attempt. */
  manual?: string[];
}

export interface ClaimResult {
  /** What the run might take (its bound, rate, the batch size) and, when less than wanted, why. */
  limit: number;
  limitedBy: WaitReason | null;
  /** The subscription stops the run (run-state.ts RunStop): paused (its pending deliveries held), or deleted or disabled (cancelled). */
  stop: RunStop | null;
  deliveries: ClaimedDelivery[];
  settings: SubscriptionSettings;
  /** The earliest time an unclaimed pending delivery falls due (epoch ms); null: none pending. */
  nextDueAt: number | null;
  /** Due deliveries were left unclaimed (by the clock of the claim). */
  dueNow: boolean;
  /** Due deliveries were left because the workspace's cap was full. */
  capFull: boolean;
  /** Manual requests the claim settled without an attempt (paused: `held`; deleted or disabled: `cancelled`), for the run to answer. Absent: none. */
  answered?: ManualAnswer[];
}

interface SubscriptionRow {
  condition: string;
  deletedAt: Date | null;
  maxInFlight: number;
  ratePerSecond: number | null;
  ordering: string;
  runAwake: boolean;
  capWaitingSince: Date | null;
}

/** Writes what the subscription's row says of its run (the claim holds the row's lock and read them). */
async function markRun(tx: Prisma.TransactionClient, subscriptionId: string, run: { awake: boolean; capWaitingSince: Date | null }): Promise<void> {
  await tx.$executeRaw`
    UPDATE "WebhookSubscription" SET "runAwake" = ${run.awake}, "capWaitingSince" = ${run.capWaitingSince?.toISOString() ?? null}::timestamp(3)
     WHERE "id" = ${subscriptionId}`;
}

/** The claim a batch's activity attempt puts on its rows: `<runId>:<call>:<attempt>`. */
const fenceOf = (token: string, attempt: number) => `${token}:${attempt}`;

/**
 * Pending rows no batch holds: unclaimed, or claimed by this very claim's token before (the claim
 * committed, its result was lost with its worker, and it runs again now): no batch of that earlier
 * pass was ever started, so nothing else would hold, cancel or send them.
 */
const unclaimedPending = (subscriptionId: string, token: string) => ({ subscriptionId, status: 'pending' as const, OR: [{ claim: null }, { claim: token }] });

export const queueRepository = {
  /** Takes up to `limit` due deliveries of the subscription, oldest event first, within the workspace's cap. */
  claimDue(input: ClaimInput): Promise<ClaimResult> {
    return prisma.$transaction(async (tx) => {
      // Claims of an earlier run (terminated, or lost with its worker): that run will record nothing.
      // At a run's first claim only: none can appear later (a zombie of an earlier run takes over
      // only rows that still carry its own claim). Before the subscription's lock: a zombie
      // recording one of these rows takes the row, then the subscription's (its failure count), so
      // the other order could deadlock with it.
      if (input.first) {
        await tx.$executeRaw`
          UPDATE "Delivery" SET "claim" = NULL
           WHERE "subscriptionId" = ${input.subscriptionId} AND "claim" IS NOT NULL AND "claim" NOT LIKE ${`${input.runId}:%`}`;
      }
      // Locked until the claim commits: a pause, resume, disable or delete (each updates this row,
      // then the deliveries) waits for the claim, or the claim for it. Read without the lock, a
      // resume committing between this read and the hold below left its rows held for good.
      // The workspace's row too, so that its claims go one at a time and the cap's count holds.
      // NO KEY UPDATE, not UPDATE: every insert that references the workspace (a ticket, its event,
      // a delivery's chain) takes KEY SHARE on its row for its foreign key, which UPDATE would block
      // until the claim commits (a lock convoy that put seconds into event-to-arrival at a steady
      // 12 events/s).
      const [sub] = await tx.$queryRaw<SubscriptionRow[]>`
        SELECT s."condition"::text AS "condition", s."deletedAt", s."maxInFlight", s."ratePerSecond", s."ordering", s."runAwake", s."capWaitingSince"
          FROM "WebhookSubscription" s JOIN "Workspace" w ON w."id" = s."workspaceId"
         WHERE s."id" = ${input.subscriptionId} FOR NO KEY UPDATE`;
      await interleave('claim:read', input.subscriptionId);
      const settings = subscriptionSettings(sub ?? { maxInFlight: 1, ratePerSecond: null, ordering: 'concurrent' }, input.maxInFlightLimit);
      const none = { limit: 0, limitedBy: null, deliveries: [], settings, nextDueAt: null, dueNow: false, capFull: false };
      if (!sub || sub.deletedAt || sub.condition === 'disabled') {
        if (sub?.runAwake) await markRun(tx, input.subscriptionId, { awake: false, capWaitingSince: sub.capWaitingSince });
        await tx.delivery.updateMany({
          where: { subscriptionId: input.subscriptionId, status: { in: ['pending', 'held'] }, OR: [{ claim: null }, { claim: input.token }] },
          data: { status: 'cancelled', nextAttemptAt: null, claim: null },
        });
        return { stop: 'cancelled', ...none, answered: await settleManual(tx, input.subscriptionId, 'cancelled') };
      }
      if (sub.condition === 'paused') {
        if (sub.runAwake) await markRun(tx, input.subscriptionId, { awake: false, capWaitingSince: sub.capWaitingSince });
        await tx.delivery.updateMany({ where: unclaimedPending(input.subscriptionId, input.token), data: { status: 'held', nextAttemptAt: null, claim: null } });
        return { stop: 'paused', ...none, answered: await settleManual(tx, input.subscriptionId, 'held') };
      }
      const { limit, limitedBy } = input.limitFor(settings);
      const { claimed, busy, next } = await claim(tx, input, limit, settings.strict);
      const take = Math.min(limit, Math.max(0, input.workspaceCap - busy));
      const nextDueAt = next ? next.getTime() : null;
      const dueNow = nextDueAt !== null && nextDueAt <= input.now.getTime();
      const capFull = take < limit && dueNow;
      // The run claims again without a wake-up while it has a batch in flight (its end is a claim):
      // the relay wakes it for new deliveries only otherwise. Under this row's lock, so a relay that
      // reads it (wakeNeeded) after writing its rows either sees `false` or the run sees the rows.
      // Marked while it waits for room, unmarked as soon as it does not: a run is woken only while it waits.
      const awake = claimed.length > 0 || input.open > 0;
      const capWaitingSince = capFull ? (sub.capWaitingSince ?? input.now) : null;
      if (awake !== sub.runAwake || capWaitingSince !== sub.capWaitingSince) await markRun(tx, input.subscriptionId, { awake, capWaitingSince });
      return { stop: null, limit, limitedBy: capFull ? 'workspace_cap' : limitedBy, deliveries: claimed, settings, nextDueAt, dueNow, capFull };
    });
  },

  /**
   * The batch's rows are this activity attempt's now (`fence`, `<token>:<attempt>`): a retry takes
   * them from an earlier attempt of the same call that may still be running on a dead worker (a
   * zombie), whose recording then finds the claim gone. Never from a later attempt: an attempt that
   * stalled before this statement while Temporal gave its batch to the next one takes nothing (and
   * sends nothing). Returns the ids that are the attempt's.
   */
  async takeOver(ids: string[], token: string, attempt: number): Promise<{ fence: string; mine: Set<string> }> {
    const fence = fenceOf(token, attempt);
    // A row of the claim cancelled before this take-over (a 410 of the run's previous batch, a
    // delete) is not sent: its claim goes with it, or it would stay claimed by no one for good.
    const rows = await prisma.$queryRaw<{ id: string }[]>`
      WITH dropped AS (
        UPDATE "Delivery" SET "claim" = NULL
         WHERE "id" = ANY(${ids}::text[]) AND "claim" = ${token} AND "status" <> 'pending' AND "manualRequestedAt" IS NULL
      )
      UPDATE "Delivery" SET "claim" = ${fence}
       WHERE "id" = ANY(${ids}::text[]) AND ("status" = 'pending' OR "manualRequestedAt" IS NOT NULL)
         AND ("claim" = ${token} OR "claim" LIKE ${`${token}:%`} AND substring("claim" from ${token.length + 2}::int)::int <= ${attempt}::int)
      RETURNING "id"`;
    return { fence, mine: new Set(rows.map((r) => r.id)) };
  },

  /** Gives claimed deliveries back unsent (their subscription was paused or removed meanwhile): the next claim decides. */
  async giveBack(ids: string[], fence: string): Promise<void> {
    await prisma.delivery.updateMany({ where: { id: { in: ids }, claim: fence }, data: { claim: null } });
  },

  /**
   * Of these subscriptions, those whose run needs a wake-up to see new deliveries (it has no batch
   * in flight). Call it after the deliveries are committed: the share lock waits for a claim in
   * progress, so either that claim saw them or it left `runAwake` false and the answer names it.
   */
  async wakeNeeded(subscriptionIds: string[]): Promise<Set<string>> {
    if (!subscriptionIds.length) return new Set();
    const rows = await prisma.$queryRaw<{ id: string }[]>`
      SELECT "id" FROM "WebhookSubscription" WHERE "id" = ANY(${subscriptionIds}::text[]) AND NOT "runAwake" ORDER BY "id" FOR SHARE`;
    return new Set(rows.map((r) => r.id));
  },

  /**
   * Other runs of the workspace that wait for room in its cap, oldest wait first, at most `n`:
   * their marks are cleared here, so each is woken once. (The batch's own run looks again when the
   * batch ends.)
   */
  async takeCapWaiters(subscriptionId: string, n: number): Promise<{ subscriptionId: string; workspaceId: number }[]> {
    if (n <= 0) return [];
    return prisma.$queryRaw<{ subscriptionId: string; workspaceId: number }[]>`
      UPDATE "WebhookSubscription" SET "capWaitingSince" = NULL
       WHERE "id" IN (
         SELECT w."id" FROM "WebhookSubscription" w
          WHERE w."workspaceId" = (SELECT "workspaceId" FROM "WebhookSubscription" WHERE "id" = ${subscriptionId})
            AND w."id" <> ${subscriptionId} AND w."capWaitingSince" IS NOT NULL
          ORDER BY w."capWaitingSince" LIMIT ${n}::int)
      RETURNING "id" AS "subscriptionId", "workspaceId"`;
  },

  /**
   * Subscriptions with a pending delivery overdue since before `before`, claimed or not (a claim of
   * a run that is gone is freed by the next run), or a manual request waiting since then whatever
   * their condition (a paused one's run answers it `held`): their runs are to be started or woken.
   */
  async overdue(before: Date, limit = 100): Promise<{ id: string; workspaceId: number }[]> {
    return prisma.$queryRaw<{ id: string; workspaceId: number }[]>`
      SELECT w."id", w."workspaceId" FROM "WebhookSubscription" w
       WHERE w."deletedAt" IS NULL AND w."condition" = 'receiving'
         AND EXISTS (SELECT 1 FROM "Delivery" d
                      WHERE d."subscriptionId" = w."id" AND d."status" = 'pending'
                        AND COALESCE(d."nextAttemptAt", d."createdAt") < ${before.toISOString()}::timestamp(3))
          OR EXISTS (SELECT 1 FROM "Delivery" d
                      WHERE d."subscriptionId" = w."id" AND d."manualRequestedAt" < ${before.toISOString()}::timestamp(3))
       LIMIT ${limit}::int`;
  },

  /** The run's effectiveInFlight (null: not lowered) and Retry-After, shown on the subscription; written only when they changed. */
  async report(subscriptionId: string, effectiveInFlight: number | null, retryAfterUntil: Date | null): Promise<void> {
    const until = retryAfterUntil?.toISOString() ?? null;
    await prisma.$executeRaw`
      UPDATE "WebhookSubscription" SET "effectiveInFlight" = ${effectiveInFlight}::int, "retryAfterUntil" = ${until}::timestamp(3)
       WHERE "id" = ${subscriptionId}
         AND ("effectiveInFlight" IS DISTINCT FROM ${effectiveInFlight}::int OR "retryAfterUntil" IS DISTINCT FROM ${until}::timestamp(3))`;
  },

  /** For the integrator: the subscription's backlog (pending, in flight, held) and its oldest waiting delivery's due time. */
  async backlog(subscriptionId: string): Promise<{ pending: number; inFlight: number; held: number; oldestDueAt: Date | null }> {
    const [row] = await prisma.$queryRaw<{ pending: number; inFlight: number; held: number; oldest: Date | null }[]>`
      SELECT count(*) FILTER (WHERE "status" = 'pending' AND "claim" IS NULL)::int AS "pending",
             count(*) FILTER (WHERE "claim" IS NOT NULL AND ("status" = 'pending' OR "manualRequestedAt" IS NOT NULL))::int AS "inFlight",
             count(*) FILTER (WHERE "status" = 'held')::int AS "held",
             min(COALESCE("nextAttemptAt", "createdAt")) FILTER (WHERE "status" = 'pending' AND "claim" IS NULL) AS "oldest"
        FROM "Delivery" WHERE "subscriptionId" = ${subscriptionId} AND ("status" IN ('pending', 'held') OR "manualRequestedAt" IS NOT NULL)`;
    return { pending: row?.pending ?? 0, inFlight: row?.inFlight ?? 0, held: row?.held ?? 0, oldestDueAt: row?.oldest ?? null };
  },
};

/**
 * Manual requests of the subscription that no batch has taken, settled without an attempt (the
 * subscription is paused, deleted or disabled): cleared, and answered `outcome` for the run to pass on.
 */
async function settleManual(tx: Prisma.TransactionClient, subscriptionId: string, outcome: 'held' | 'cancelled'): Promise<ManualAnswer[]> {
  const rows = await tx.$queryRaw<{ id: string; requesters: string[] }[]>`
    UPDATE "Delivery" d SET "manualRequests" = '{}', "manualRequestedAt" = NULL
      FROM (SELECT "id", "manualRequests" FROM "Delivery"
             WHERE "subscriptionId" = ${subscriptionId} AND "manualRequestedAt" IS NOT NULL AND "claim" IS NULL FOR UPDATE) old
     WHERE d."id" = old."id"
    RETURNING d."id", old."manualRequests" AS "requesters"`;
  return rows.map((r) => ({ deliveryId: r.id, requesters: r.requesters, result: { outcome } }));
}

/**
 * The claim itself, in one statement (one snapshot, taken after the workspace's lock): the
 * workspace's claimed rows (its in-flight count: `busy`, manual attempts included whatever their
 * delivery's status, this token's own left out), the oldest due deliveries and manual requests within both `limit` and the
 * cap's room, in event order (a delivery that is both goes as the manual attempt, and its scheduled
 * one stays due), and when the earliest of the rest falls due (a manual request waiting: now).
 * Strictly ordered: one at a time, only while nothing is in flight, a manual request first, else the
 * head of the queue (and the earliest of the rest is the head's). Rows that already carry this
 * token come back first: a claim that committed but whose workflow task was lost with its worker
 * runs again under the same token on replay, and must not leave what it took the first time
 * claimed by nobody.
 */
/** A strictly ordered subscription's head: its first pending delivery in its events' (txid, seq) order. */
const strictHead = (subscriptionId: string) => Prisma.sql`
  SELECT d."id", d."claim", d."nextAttemptAt", d."seq", e."txid" FROM "Delivery" d JOIN "Event" e ON e."id" = d."eventId"
   WHERE d."subscriptionId" = ${subscriptionId} AND d."status" = 'pending' ORDER BY e."txid", e."seq" LIMIT 1`;

async function claim(tx: Prisma.TransactionClient, input: ClaimInput, limit: number, strict: boolean) {
  const now = input.now.toISOString();
  const room = Prisma.sql`(SELECT GREATEST(0, LEAST(${limit}::int, ${input.workspaceCap}::int - "n")) FROM busy)`;
  const returning = Prisma.sql`RETURNING d."id", d."eventId", d."seq", d."scheduledAttempts" + 1 AS "attempt",
    COALESCE(d."manualRequestedAt", d."nextAttemptAt", d."createdAt") AS "dueAt", NULLIF(d."manualRequests", '{}') AS "manual"`;
  // Strict: this claim's own row, else the oldest manual request, else the head, in the events'
  // (txid, seq) order as the events feed's. The head goes only below the horizon (its event's
  // transaction older than every one still running: none of those can commit an event before it;
  // by seq alone, a transaction that took a lower seq and commits later would come out after a
  // later event, found by the simulation, seed 371 on PostgreSQL) and unless an earlier event of
  // the workspace has no deliveries written yet (a relay holds it, or died holding it): its
  // delivery to this subscription may be about to come before the head. In this one snapshot an
  // event seen written has its rows seen.
  const take = strict
    ? Prisma.sql`
        UPDATE "Delivery" d SET "claim" = ${input.token}
          FROM (SELECT "id" FROM (
                  SELECT "id", 0 AS "rank", "seq" FROM "Delivery" WHERE "subscriptionId" = ${input.subscriptionId} AND "claim" = ${input.token}
                  UNION ALL
                  SELECT "id", 1, "seq" FROM "Delivery"
                   WHERE "subscriptionId" = ${input.subscriptionId} AND "claim" IS NULL AND "manualRequestedAt" IS NOT NULL
                  UNION ALL
                  SELECT h."id", 2, h."seq"
                    FROM (${strictHead(input.subscriptionId)}) h
                   WHERE h."claim" IS NULL AND COALESCE(h."nextAttemptAt", ${now}::timestamp(3)) <= ${now}::timestamp(3)
                     AND h."txid" < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
                     AND NOT EXISTS (SELECT 1 FROM "Event" e
                                      WHERE e."relayedAt" IS NULL AND e."workspaceId" = ${input.workspaceId}::int AND (e."txid", e."seq") < (h."txid", h."seq") AND e."deliveriesWrittenAt" IS NULL)
                ) c ORDER BY "rank", "seq" LIMIT 1) p
         WHERE d."id" = p."id" AND ${room} > 0
        ${returning}`
    : Prisma.sql`
        UPDATE "Delivery" d SET "claim" = ${input.token}
         WHERE d."id" IN (SELECT "id" FROM "Delivery"
                           WHERE "subscriptionId" = ${input.subscriptionId}
                             AND ("claim" IS NULL AND ("manualRequestedAt" IS NOT NULL
                                                       OR "status" = 'pending' AND COALESCE("nextAttemptAt", ${now}::timestamp(3)) <= ${now}::timestamp(3))
                                  OR "claim" = ${input.token})
                           ORDER BY ("claim" IS NOT DISTINCT FROM ${input.token}) DESC, "seq" LIMIT ${room} FOR UPDATE SKIP LOCKED)
        ${returning}`;
  // Strictly ordered, the head decides (in flight or not yet due, nothing else goes); else the
  // earliest unclaimed one (this statement's own claims are not seen here: they are left out).
  // A manual request left waiting is due now either way.
  const scheduled = strict
    ? Prisma.sql`SELECT COALESCE("nextAttemptAt", ${now}::timestamp(3)) AS "at" FROM (${strictHead(input.subscriptionId)}) h`
    : Prisma.sql`SELECT min(COALESCE("nextAttemptAt", ${now}::timestamp(3))) AS "at" FROM "Delivery"
                  WHERE "subscriptionId" = ${input.subscriptionId} AND "status" = 'pending' AND "claim" IS NULL
                    AND "id" NOT IN (SELECT "id" FROM taken)`;
  const next = Prisma.sql`
    SELECT CASE WHEN EXISTS (SELECT 1 FROM "Delivery"
                              WHERE "subscriptionId" = ${input.subscriptionId} AND "manualRequestedAt" IS NOT NULL AND "claim" IS NULL
                                AND "id" NOT IN (SELECT "id" FROM taken))
                THEN ${now}::timestamp(3) ELSE (${scheduled}) END AS "at"`;
  const [row] = await tx.$queryRaw<{ busy: number; next: Date | null; taken: { id: string; eventId: string; seq: string; attempt: number; dueAt: string; manual: string[] | null }[] | null }[]>`
    WITH busy AS (
      -- Not the rows this token holds already: a claim run again on replay gets them back within the room.
      SELECT count(*)::int AS "n" FROM "Delivery"
       WHERE "subscriptionId" IN (SELECT "id" FROM "WebhookSubscription" WHERE "workspaceId" = ${input.workspaceId}::int)
         AND "claim" IS NOT NULL AND "claim" <> ${input.token} AND ("status" = 'pending' OR "manualRequestedAt" IS NOT NULL)
    ), taken AS (${take}), next AS (${next})
    SELECT (SELECT "n" FROM busy) AS "busy", (SELECT "at" FROM next) AS "next",
           (SELECT json_agg(json_build_object('id', "id", 'eventId', "eventId", 'seq', "seq"::text, 'attempt', "attempt", 'dueAt', "dueAt", 'manual', "manual") ORDER BY "seq") FROM taken) AS "taken"`;
  const at = input.now.getTime();
  const claimed = (row?.taken ?? []).map((r): ClaimedDelivery => {
    // Only what the run held it back for counts (its bound, the rate, a Retry-After, the cap), not
    // the time the relay and the run's start took; within an int's range whatever the clocks say.
    const ms = Math.min(MAX_WAITED_MS, Math.max(0, at - new Date(`${r.dueAt}Z`).getTime()));
    const waited = input.waitedFor && ms >= WAITED_AT_LEAST_MS ? { reason: input.waitedFor, ms } : null;
    return { id: r.id, eventId: r.eventId, attempt: Number(r.attempt), waited, ...(r.manual ? { manual: r.manual } : {}) };
  });
  return { claimed, busy: row?.busy ?? 0, next: row?.next ?? null };
}
