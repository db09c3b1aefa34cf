// Data access of the outbox relay (outbox-relay.ts): its fair claim of unrelayed events, the
// subscriptions an event may go to, writing their deliveries (a paused subscription's within its
// held-delivery cap), and marking the events written and relayed.
import { prisma } from '../../db/db.ts';
import { newId } from '../../ids.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { config } from '../../config.ts';
import { logger } from '../../logger.ts';

const live = { deletedAt: null } as const;

/** Workspaces with unrelayed events that one claim looks at (see claimEvents). */
const MAX_BACKLOG_WORKSPACES = 1_000;

/** An event the relay is fanning out. */
export interface ClaimedEvent {
  id: string;
  seq: bigint;
  type: string;
  workspaceId: number;
  boardId: string | null;
  targetSubscriptionId: string | null;
  /** An operational event: the subscription it is about. */
  aboutSubscriptionId: string | null;
  /** An operational event: that subscription's board filter when the event was written. */
  aboutBoardIds: string[];
  /** ticket.updated: the fields its `changes` name (for the subscriptions' field filters); null for other types. */
  changedFields: string[] | null;
  /** The trace its deliveries continue (traces on; src/tracing/tracing.ts). */
  traceparent: string | null;
  /** When it occurred (the writer's clock): the relay's pickup delay is measured from it. */
  occurredAt: Date;
  /** Its deliveries were written by an earlier pass (a relay that died before marking it relayed). */
  written: boolean;
}

/** A delivery's columns of a relay pair (the caller's pairs may carry more). */
const pick = (p: { eventId: string; subscriptionId: string; seq: bigint; workflowId: string; payloadMode?: string }) => ({
  eventId: p.eventId, subscriptionId: p.subscriptionId, seq: p.seq, workflowId: p.workflowId, ...(p.payloadMode ? { payloadMode: p.payloadMode } : {}),
});

/**
 * What a paused subscription holds, counted up to `cap` (an index walk of at most `cap` rows):
 * its deliveries waiting to be sent (held, or pending: those are held when their attempt comes)
 * and the test events queued for it but not yet turned into deliveries.
 */
export async function waitingWork(db: Pick<Prisma.TransactionClient, '$queryRaw'>, subscriptionId: string, cap: number): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT (SELECT count(*) FROM (SELECT 1 FROM "Delivery" d WHERE d."subscriptionId" = ${subscriptionId} AND d."status" IN ('held', 'pending') LIMIT ${cap}) x)::int
         + (SELECT count(*) FROM (SELECT 1 FROM "Event" e WHERE e."relayedAt" IS NULL AND e."targetSubscriptionId" = ${subscriptionId} LIMIT ${cap}) y)::int AS "n"`;
  return row?.n ?? 0;
}

export const relayRepository = {
  /**
   * Takes up to `limit` unrelayed events that no other relay holds, for `leaseMs`, fairly across
   * workspaces: round-robin, one event of each workspace with a backlog per turn (its oldest
   * first), the workspaces in the order of their oldest waiting event. So one workspace writing
   * 10,000 events delays another's next event by one batch at most, not by its whole backlog.
   *
   * Cheap on a large outbox and under a burst: the workspaces with a backlog are found by a loose
   * index scan of ("relayedAt", "workspaceId", "seq") from its NULL end (one probe per such
   * workspace, at most MAX_BACKLOG_WORKSPACES), and each of the first `limit` of them gives at
   * most its share of rows (in all at most 8 × `limit`), enough for two lanes of claims to both
   * fill a batch. The rows are then locked FOR UPDATE SKIP LOCKED one by one in turn order (by
   * primary key, until `limit` are held), each checked again under its lock (unrelayed, lease
   * free): so a row is claimed by one relay at a time,
   * and one whose relay died is taken again once its lease runs out (nothing lost or doubled,
   * as before). Past MAX_BACKLOG_WORKSPACES workspaces with a backlog at once, those with the
   * lowest ids are served first until the backlogs shrink. Returned in `seq` (commit) order: an
   * UPDATE's RETURNING follows where the rows sit on disk, which on reused pages is not that.
   */
  async claimEvents(limit: number, leaseMs: number): Promise<ClaimedEvent[]> {
    const claimed = await prisma.$queryRaw<ClaimedEvent[]>`
      WITH RECURSIVE backlog("workspaceId", depth) AS (
        (SELECT "workspaceId", 1 FROM "Event" WHERE "relayedAt" IS NULL ORDER BY "relayedAt", "workspaceId" LIMIT 1)
        UNION ALL
        SELECT (SELECT e."workspaceId" FROM "Event" e
                 WHERE e."relayedAt" IS NULL AND e."workspaceId" > b."workspaceId"
                 ORDER BY e."relayedAt", e."workspaceId" LIMIT 1), b.depth + 1
          FROM backlog b WHERE b."workspaceId" IS NOT NULL AND b.depth < ${MAX_BACKLOG_WORKSPACES}
      ),
      heads AS (
        SELECT b."workspaceId", h."seq" AS "headSeq" FROM backlog b
         CROSS JOIN LATERAL (
           SELECT e."seq" FROM "Event" e
            WHERE e."relayedAt" IS NULL AND e."workspaceId" = b."workspaceId" AND (e."relayLeaseUntil" IS NULL OR e."relayLeaseUntil" < now())
            ORDER BY e."relayedAt", e."workspaceId", e."seq" LIMIT 1) h
         ORDER BY h."seq" LIMIT ${limit}
      ),
      share AS (SELECT LEAST(2 * ${limit}::int, CEIL(8.0 * ${limit}::int / GREATEST(count(*), 1)))::int AS n FROM heads),
      candidates AS (
        SELECT c."id", c.turn, h."headSeq" FROM heads h
         CROSS JOIN LATERAL (
           SELECT e."id", row_number() OVER (ORDER BY e."seq") AS turn FROM (
             SELECT e."id", e."seq" FROM "Event" e
              WHERE e."relayedAt" IS NULL AND e."workspaceId" = h."workspaceId" AND (e."relayLeaseUntil" IS NULL OR e."relayLeaseUntil" < now())
              ORDER BY e."relayedAt", e."workspaceId", e."seq" LIMIT (SELECT n FROM share)) e) c
      )
      UPDATE "Event" SET "relayLeaseUntil" = now() + make_interval(secs => ${leaseMs / 1000})
       WHERE "id" IN (
         SELECT l."id" FROM (SELECT * FROM candidates ORDER BY turn, "headSeq") c
          CROSS JOIN LATERAL (
            SELECT e."id" FROM "Event" e
             WHERE e."id" = c."id" AND e."relayedAt" IS NULL AND (e."relayLeaseUntil" IS NULL OR e."relayLeaseUntil" < now())
             FOR UPDATE SKIP LOCKED) l
          LIMIT ${limit})
      RETURNING "id", "seq", "type", "workspaceId", "boardId", "targetSubscriptionId", "aboutSubscriptionId", "aboutBoardIds", "traceparent", "occurredAt",
        "deliveriesWrittenAt" IS NOT NULL AS "written",
        CASE WHEN "type" = 'ticket.updated' AND jsonb_typeof("payload"->'changes') = 'array'
             THEN ARRAY(SELECT c->>'field' FROM jsonb_array_elements("payload"->'changes') c) END AS "changedFields"`;
    return claimed.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
  },

  /**
   * Subscriptions that may get new deliveries: receiving ones, and paused ones (those are held)
   * while they hold fewer than `heldCap` deliveries. A paused subscription at its cap gets none:
   * the events that occur meanwhile are skipped for it (never sent, not even on resume), and a
   * warning says so, once per batch of events.
   */
  async subscriptionsForRelay(workspaceIds: number[], heldCap = config.limits.maxHeldDeliveriesPerSubscription) {
    const rows = await prisma.webhookSubscription.findMany({
      where: { workspaceId: { in: workspaceIds }, condition: { not: 'disabled' }, ...live },
      select: {
        id: true, workspaceId: true, events: true, boardIds: true, fields: true, condition: true, payload: true,
        createdBy: { select: { role: { select: { isAdmin: true, allBoards: true, boards: { select: { boardId: true } } } } } },
      },
    });
    // The boards its owner's role sees now (null: every board), as a read by that role is judged.
    const subscriptions = rows.map(({ createdBy, ...s }) => {
      const role = createdBy.role;
      return { ...s, ownerBoards: role.isAdmin || role.allBoards ? null : role.boards.map((b) => b.boardId) };
    });
    const paused = subscriptions.filter((s) => s.condition === 'paused').map((s) => s.id);
    if (!paused.length) return subscriptions;
    const full = new Set<string>();
    for (const id of paused) if ((await waitingWork(prisma, id, heldCap)) >= heldCap) full.add(id);
    if (full.size) logger.warn({ subscriptionIds: [...full], heldCap }, 'paused subscriptions at their held-delivery cap: new events are skipped for them');
    return subscriptions.filter((s) => !full.has(s.id));
  },

  /**
   * The deliveries of (event, subscription) pairs, created once however often this runs. A paused
   * subscription's (`paused`, as the relay read them, or paused since: a manual pause, or the 20th
   * failure, between the relay's read and this write) are counted against its held-delivery cap as
   * they are written, under a lock on its row: one batch, or two relays at once, never take it past
   * the cap (subscriptionsForRelay's look before the batch cannot promise that); the pairs beyond are
   * skipped for it, in event order, and logged as subscriptionsForRelay logs a full one. Returns the
   * pairs that have a delivery now (made here or before).
   */
  async createDeliveries<P extends { eventId: string; subscriptionId: string; seq: bigint; workflowId: string; payloadMode?: string }>(
    pairs: P[],
    paused: ReadonlySet<string> = new Set(),
    heldCap = config.limits.maxHeldDeliveriesPerSubscription,
  ): Promise<P[]> {
    const open = pairs.filter((p) => !paused.has(p.subscriptionId));
    // The others' rows share-locked until their deliveries are written: a pause committed since the
    // relay's read is seen here (those pairs are counted below), and one after it waits, then holds
    // these deliveries with the rest. Unlocked, a pause in between let a whole batch past the cap.
    const pausedSince = new Set<string>();
    if (open.length) {
      await prisma.$transaction(async (tx) => {
        const ids = [...new Set(open.map((p) => p.subscriptionId))].sort();
        const rows = await tx.$queryRaw<{ id: string; condition: string }[]>`
          SELECT "id", "condition"::text AS "condition" FROM "WebhookSubscription" WHERE "id" = ANY(${ids}::text[]) ORDER BY "id" FOR SHARE`;
        for (const r of rows) if (r.condition === 'paused') pausedSince.add(r.id);
        const writable = open.filter((p) => !pausedSince.has(p.subscriptionId));
        if (writable.length) await tx.delivery.createMany({ data: writable.map((p) => ({ id: newId('dlv'), ...pick(p) })), skipDuplicates: true });
      });
    }
    const counted = (p: P) => paused.has(p.subscriptionId) || pausedSince.has(p.subscriptionId);
    const kept = pairs.filter((p) => !counted(p));
    const skipped: Record<string, number> = {};
    for (const id of [...new Set(pairs.filter(counted).map((p) => p.subscriptionId))].sort()) {
      const mine = pairs.filter((p) => p.subscriptionId === id).sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
      const written = await prisma.$transaction(async (tx) => {
        const [row] = await tx.$queryRaw<{ condition: string }[]>`
          SELECT "condition"::text AS "condition" FROM "WebhookSubscription" WHERE "id" = ${id} FOR UPDATE`;
        const existing = new Set(
          (await tx.delivery.findMany({ where: { subscriptionId: id, eventId: { in: mine.map((p) => p.eventId) } }, select: { eventId: true } })).map((d) => d.eventId),
        );
        const fresh = mine.filter((p) => !existing.has(p.eventId));
        const room = row?.condition === 'paused' ? Math.max(0, heldCap - (await waitingWork(tx, id, heldCap))) : fresh.length;
        const taken = fresh.slice(0, room);
        if (taken.length) await tx.delivery.createMany({ data: taken.map((p) => ({ id: newId('dlv'), ...pick(p) })), skipDuplicates: true });
        if (taken.length < fresh.length) skipped[id] = fresh.length - taken.length;
        return [...mine.filter((p) => existing.has(p.eventId)), ...taken];
      });
      kept.push(...written);
    }
    if (Object.keys(skipped).length) logger.warn({ skipped, heldCap }, 'paused subscriptions at their held-delivery cap: new events are skipped for them');
    return kept;
  },

  /** The subscriptions that already have deliveries of these events (written by an earlier pass), to wake their runs. */
  subscriptionsWithDeliveries(eventIds: string[]): Promise<{ eventId: string; subscriptionId: string }[]> {
    if (!eventIds.length) return Promise.resolve([]);
    return prisma.$queryRaw`SELECT "eventId", "subscriptionId" FROM "Delivery" WHERE "eventId" = ANY(${eventIds}::text[])`;
  },

  /**
   * The events' deliveries are written (each matching subscription has its row): a strictly
   * ordered subscription's later deliveries no longer wait for them (../delivery/queue.repository.ts claim).
   */
  markDeliveriesWritten(eventIds: string[]) {
    return prisma.$executeRaw`UPDATE "Event" SET "deliveriesWrittenAt" = now() WHERE "id" = ANY(${eventIds}::text[]) AND "deliveriesWrittenAt" IS NULL`;
  },

  markRelayed(eventIds: string[], at: Date) {
    return prisma.event.updateMany({ where: { id: { in: eventIds } }, data: { relayedAt: at, relayLeaseUntil: null } });
  },

  releaseLease(eventIds: string[]) {
    return prisma.event.updateMany({ where: { id: { in: eventIds }, relayedAt: null }, data: { relayLeaseUntil: null } });
  },
};
