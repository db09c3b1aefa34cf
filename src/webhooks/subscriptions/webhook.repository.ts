// Data access of webhook subscriptions, their delivery log and the outbox relay.
import { prisma } from '../../db/db.ts';
import { newId } from '../../ids.ts';
import { Prisma, type DeliveryStatus, type WebhookSubscription } from '../../generated/prisma/client.ts';
import { writeEvent, type WriteEventInput } from '../../events/event.outbox.ts';
import type { EventActor } from '../../events/event.envelope.ts';
import { eventVisible } from '../../events/event.visibility.ts';
import { writeConditionEvent } from '../delivery/operational-events.ts';
import { openSecret, sealSecret } from '../message/secret-box.ts';
import { config } from '../../config.ts';
import { logger } from '../../logger.ts';
import type { TimeAndId } from '../../paging/page-keys.ts';
import type { AuditWrite } from '../../audit/audit.writer.ts';

const live = { deletedAt: null } as const;

/** Workspaces with unrelayed events that one claim looks at (see claimEvents). */
const MAX_BACKLOG_WORKSPACES = 1_000;

interface SubscriptionData {
  url: string;
  events: string[];
  boardIds: string[];
  fields: string[];
  description: string;
  maxInFlight?: number;
  ratePerSecond?: number | null;
  ordering?: 'concurrent' | 'strict';
  /** null: back to the default schedule (retry-schedule.ts). */
  retrySchedule?: { delaysSeconds: number[] } | null;
  payload?: 'full' | 'thin';
}

/** What an update may also reset: the AIMD bound and the rate's schedule follow a new setting. */
type SubscriptionUpdate = Partial<SubscriptionData> & { inFlightBound?: null };

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
  waitedReason: string | null;
  waitedMs: number | null;
  sortAt: Date;
  /** The subscription's scheduled attempts in force (retry-schedule.ts); set by the service. */
  maxAttempts?: number;
  /** A waiting delivery's form (thin-payload.ts): its `payload` is the stored event, shown as it will be sent. Null for attempts, whose payload is the body sent. */
  payloadMode?: string | null;
}

interface DeliveryLogFilter {
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

/** A delivery's columns of a relay pair (the caller's pairs may carry more). */
const pick = (p: { eventId: string; subscriptionId: string; seq: bigint; workflowId: string; payloadMode?: string }) => ({
  eventId: p.eventId, subscriptionId: p.subscriptionId, seq: p.seq, workflowId: p.workflowId, ...(p.payloadMode ? { payloadMode: p.payloadMode } : {}),
});

/**
 * What a paused subscription holds, counted up to `cap` (an index walk of at most `cap` rows):
 * its deliveries waiting to be sent (held, or pending: those are held when their attempt comes)
 * and the test events queued for it but not yet turned into deliveries.
 */
async function waitingWork(db: Pick<Prisma.TransactionClient, '$queryRaw'>, subscriptionId: string, cap: number): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT (SELECT count(*) FROM (SELECT 1 FROM "Delivery" d WHERE d."subscriptionId" = ${subscriptionId} AND d."status" IN ('held', 'pending') LIMIT ${cap}) x)::int
         + (SELECT count(*) FROM (SELECT 1 FROM "Event" e WHERE e."relayedAt" IS NULL AND e."targetSubscriptionId" = ${subscriptionId} LIMIT ${cap}) y)::int AS "n"`;
  return row?.n ?? 0;
}

/**
 * A subscription as the API reads it: without its signing secrets, which stay sealed in the table
 * (secret-box.ts). Only the answers that issue one carry it, and only deliveries open them: a
 * process that lacks a key (a rolling change of keys) still lists and reads every subscription.
 */
export type Subscription = Omit<WebhookSubscription, 'secret' | 'previousSecret'>;
const sealed = { secret: true, previousSecret: true } as const;

export const webhookRepository = {
  async listForWorkspace(workspaceId: number): Promise<Subscription[]> {
    return prisma.webhookSubscription.findMany({ where: { workspaceId, ...live }, orderBy: { id: 'desc' }, omit: sealed });
  },

  async find(workspaceId: number, id: string): Promise<Subscription | null> {
    return prisma.webhookSubscription.findFirst({ where: { id, workspaceId, ...live }, omit: sealed });
  },

  /**
   * Creates a subscription under a lock on the workspace's row (and, for an API key, the key's),
   * so that parallel requests cannot together pass the workspace's limit or the key's. Says which
   * limit is reached instead when one is.
   */
  create(
    input: SubscriptionData & { workspaceId: number; createdById: number; apiKeyId: number | null; secret: string; limit: number | null; workspaceLimit: number },
    audit?: AuditWrite<Subscription>,
  ): Promise<Subscription | { limitReached: 'workspace' | 'apiKey' }> {
    return prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM "Workspace" WHERE "id" = ${input.workspaceId} FOR UPDATE`;
      if ((await tx.webhookSubscription.count({ where: { workspaceId: input.workspaceId, ...live } })) >= input.workspaceLimit) return { limitReached: 'workspace' as const };
      if (input.apiKeyId !== null && input.limit !== null) {
        await tx.$queryRaw`SELECT 1 FROM "ApiKey" WHERE "id" = ${input.apiKeyId} FOR UPDATE`;
        const count = await tx.webhookSubscription.count({ where: { apiKeyId: input.apiKeyId, ...live } });
        if (count >= input.limit) return { limitReached: 'apiKey' as const };
      }
      const id = newId('wh');
      const created = await tx.webhookSubscription.create({
        data: {
          id,
          workspaceId: input.workspaceId,
          apiKeyId: input.apiKeyId,
          createdById: input.createdById,
          url: input.url,
          events: input.events,
          boardIds: input.boardIds,
          fields: input.fields,
          description: input.description,
          ...(input.maxInFlight !== undefined ? { maxInFlight: input.maxInFlight } : {}),
          ...(input.ratePerSecond != null ? { ratePerSecond: input.ratePerSecond } : {}),
          ...(input.ordering !== undefined ? { ordering: input.ordering } : {}),
          ...(input.retrySchedule ? { retrySchedule: input.retrySchedule } : {}),
          ...(input.payload !== undefined ? { payload: input.payload } : {}),
          secret: sealSecret(input.secret, { subscriptionId: id, column: 'secret' }),
        },
        omit: sealed,
      });
      await audit?.(tx, created);
      return created;
    });
  },

  async existingBoardIds(workspaceId: number, ids: string[]): Promise<Set<string>> {
    const rows = await prisma.board.findMany({ where: { workspaceId, id: { in: ids } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  },

  /** Which of these are ids of custom fields of the workspace's boards. */
  async existingFieldIds(workspaceId: number, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await prisma.boardField.findMany({ where: { id: { in: ids }, board: { workspaceId } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  },

  async update(id: string, data: SubscriptionUpdate, audit?: AuditWrite<Subscription>) {
    const { retrySchedule, ...rest } = data;
    const schedule = retrySchedule === undefined ? {} : { retrySchedule: retrySchedule ?? Prisma.DbNull };
    return prisma.$transaction(async (tx) => {
      const updated = await tx.webhookSubscription.update({ where: { id }, data: { ...rest, ...schedule }, omit: sealed });
      await audit?.(tx, updated);
      return updated;
    });
  },

  /** Soft delete (the log stays for its 30 days); what was still to be sent is cancelled. */
  delete(id: string, at: Date, audit?: AuditWrite) {
    return prisma.$transaction(async (tx) => {
      await tx.webhookSubscription.update({ where: { id }, data: { deletedAt: at } });
      await tx.delivery.updateMany({ where: { subscriptionId: id, status: { in: ['pending', 'held'] } }, data: { status: 'cancelled', nextAttemptAt: null } });
      await audit?.(tx, undefined);
    });
  },

  /** The new secret signs from now on; the old one signs too for 24 hours. */
  rotateSecret(id: string, secret: string, at: Date, audit?: AuditWrite) {
    return prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ secret: string }[]>`SELECT "secret" FROM "WebhookSubscription" WHERE "id" = ${id} FOR UPDATE`;
      // The current secret becomes the previous one (sealed again for that column); it replaces (clears) the one before it.
      const previous = openSecret(row!.secret, { subscriptionId: id, column: 'secret' });
      const updated = await tx.webhookSubscription.update({
        where: { id },
        data: { secret: sealSecret(secret, { subscriptionId: id, column: 'secret' }), previousSecret: sealSecret(previous, { subscriptionId: id, column: 'previousSecret' }), secretRotatedAt: at },
        omit: sealed,
      });
      await audit?.(tx, undefined);
      return updated;
    });
  },

  /** disabled → receiving with a fresh failure count, and its webhook.enabled event; false when it was not disabled. */
  enable(id: string, actor: EventActor | null = null, audit?: AuditWrite): Promise<boolean> {
    return prisma.$transaction(async (tx) => {
      const { count } = await tx.webhookSubscription.updateMany({
        where: { id, condition: 'disabled', ...live },
        data: { condition: 'receiving', consecutiveFailures: 0, disabledAt: null, conditionReason: null },
      });
      if (count === 1) await writeConditionEvent(tx, 'webhook.enabled', id, 'manual', actor, new Date());
      if (count === 1) await audit?.(tx, undefined);
      return count === 1;
    });
  },

  /**
   * Queues a webhook.test event through the outbox, as every change does. While the subscription
   * is paused, under a lock on its row (parallel requests cannot together pass the cap): null
   * when the deliveries it holds, with the test events on their way to it, reach `heldCap`.
   */
  queueTestEvent(subscriptionId: string, heldCap: number, input: WriteEventInput, audit?: AuditWrite<{ id: string }>) {
    return prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ condition: string }[]>`
        SELECT "condition"::text AS "condition" FROM "WebhookSubscription" WHERE "id" = ${subscriptionId} FOR UPDATE`;
      if (row?.condition === 'paused' && (await waitingWork(tx, subscriptionId, heldCap)) >= heldCap) return null;
      const envelope = await writeEvent(tx, input);
      await audit?.(tx, envelope);
      return envelope;
    });
  },

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

  // The outbox relay.

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

  /**
   * The events' deliveries are written (each matching subscription has its row): a strictly
   * ordered subscription's later deliveries no longer wait for them (queue.repository.ts claim).
   */
  /** The subscriptions that already have deliveries of these events (written by an earlier pass), to wake their runs. */
  subscriptionsWithDeliveries(eventIds: string[]): Promise<{ eventId: string; subscriptionId: string }[]> {
    if (!eventIds.length) return Promise.resolve([]);
    return prisma.$queryRaw`SELECT "eventId", "subscriptionId" FROM "Delivery" WHERE "eventId" = ANY(${eventIds}::text[])`;
  },

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
