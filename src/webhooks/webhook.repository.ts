// Data access of webhook subscriptions, their delivery log and the outbox relay.
import { prisma } from '../db/db.ts';
import { newId } from '../ids.ts';
import { Prisma, type DeliveryStatus, type WebhookSubscription } from '../generated/prisma/client.ts';
import { writeEvent, type WriteEventInput } from '../events/event.outbox.ts';
import { sealSecret } from './secret-box.ts';
import { openSecrets } from './secret.repository.ts';

const live = { deletedAt: null } as const;

export interface SubscriptionData {
  url: string;
  events: string[];
  boardIds: string[];
  description: string;
}

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
  sortAt: Date;
}

export interface DeliveryLogFilter {
  status?: DeliveryStatus | null;
  eventType?: string | null;
  eventId?: string | null;
  since?: Date | null;
  until?: Date | null;
  /** Keyset position: entries strictly older than this one. */
  after?: { sortAt: Date; id: string } | null;
}

/** An event the relay is fanning out. */
export interface ClaimedEvent {
  id: string;
  seq: bigint;
  type: string;
  workspaceId: number;
  boardId: string | null;
  targetSubscriptionId: string | null;
  /** The trace its deliveries continue (traces on; src/tracing/tracing.ts). */
  traceparent: string | null;
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
  if (filter.after) where.push(Prisma.sql`(a."attemptedAt", a."id") < (${filter.after.sortAt}, ${filter.after.id})`);
  return Prisma.sql`(
    SELECT a."id", a."deliveryId", a."eventId", a."eventType", a."attempt", a."trigger"::text AS "trigger",
           a."status"::text AS "status", a."httpStatus", a."durationMs", a."responseExcerpt", a."error", a."payload",
           a."attemptedAt", a."nextAttemptAt", a."workflowId", a."attemptedAt" AS "sortAt"
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
  if (filter.after) where.push(Prisma.sql`(d."updatedAt", d."id") < (${filter.after.sortAt}, ${filter.after.id})`);
  return Prisma.sql`(
    SELECT d."id", d."id" AS "deliveryId", d."eventId", e."type" AS "eventType", d."attemptCount" + 1 AS "attempt",
           CASE WHEN e."type" = 'webhook.test' THEN 'test' ELSE 'scheduled' END AS "trigger",
           d."status"::text AS "status", NULL::int AS "httpStatus", NULL::int AS "durationMs", NULL AS "responseExcerpt", NULL AS "error",
           e."payload"::text AS "payload", NULL::timestamp(3) AS "attemptedAt", d."nextAttemptAt", d."workflowId", d."updatedAt" AS "sortAt"
      FROM "Delivery" d JOIN "Event" e ON e."id" = d."eventId"
     WHERE ${Prisma.join(where, ' AND ')}
     ORDER BY d."updatedAt" DESC, d."id" DESC
     LIMIT ${take})`;
}

export const webhookRepository = {
  // Rows come out with their secrets in plain text (secret-box.ts seals them in the table).
  async listForWorkspace(workspaceId: number): Promise<WebhookSubscription[]> {
    return (await prisma.webhookSubscription.findMany({ where: { workspaceId, ...live }, orderBy: { id: 'desc' } })).map((r) => openSecrets(r));
  },

  async find(workspaceId: number, id: string): Promise<WebhookSubscription | null> {
    const row = await prisma.webhookSubscription.findFirst({ where: { id, workspaceId, ...live } });
    return row && openSecrets(row);
  },

  /**
   * Creates a subscription; for an API key, under a lock on the key's row so that parallel
   * requests cannot together pass its subscription limit. Null when the limit is reached.
   */
  create(input: SubscriptionData & { workspaceId: number; createdById: number; apiKeyId: number | null; secret: string; limit: number | null }) {
    return prisma.$transaction(async (tx) => {
      if (input.apiKeyId !== null && input.limit !== null) {
        await tx.$queryRaw`SELECT 1 FROM "ApiKey" WHERE "id" = ${input.apiKeyId} FOR UPDATE`;
        const count = await tx.webhookSubscription.count({ where: { apiKeyId: input.apiKeyId, ...live } });
        if (count >= input.limit) return null;
      }
      return tx.webhookSubscription.create({
        data: {
          id: newId('wh'),
          workspaceId: input.workspaceId,
          apiKeyId: input.apiKeyId,
          createdById: input.createdById,
          url: input.url,
          events: input.events,
          boardIds: input.boardIds,
          description: input.description,
          secret: sealSecret(input.secret),
        },
      }).then((row) => openSecrets(row));
    });
  },

  async existingBoardIds(workspaceId: number, ids: string[]): Promise<Set<string>> {
    const rows = await prisma.board.findMany({ where: { workspaceId, id: { in: ids } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  },

  async update(id: string, data: Partial<SubscriptionData>) {
    return openSecrets(await prisma.webhookSubscription.update({ where: { id }, data }));
  },

  /** Soft delete (the log stays for its 30 days); what was still to be sent is cancelled. */
  delete(id: string, at: Date) {
    return prisma.$transaction([
      prisma.webhookSubscription.update({ where: { id }, data: { deletedAt: at } }),
      prisma.delivery.updateMany({ where: { subscriptionId: id, status: { in: ['pending', 'held'] } }, data: { status: 'cancelled', nextAttemptAt: null } }),
    ]);
  },

  /** The new secret signs from now on; the old one signs too for 24 hours. */
  rotateSecret(id: string, secret: string, at: Date) {
    return prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ secret: string }[]>`SELECT "secret" FROM "WebhookSubscription" WHERE "id" = ${id} FOR UPDATE`;
      // The previous secret stays as sealed; it replaces (clears) the one before it.
      const updated = await tx.webhookSubscription.update({ where: { id }, data: { secret: sealSecret(secret), previousSecret: row!.secret, secretRotatedAt: at } });
      return openSecrets(updated, at);
    });
  },

  /** disabled → receiving with a fresh failure count; null when it was not disabled. */
  async enable(id: string) {
    const { count } = await prisma.webhookSubscription.updateMany({
      where: { id, condition: 'disabled', ...live },
      data: { condition: 'receiving', consecutiveFailures: 0, disabledAt: null, conditionReason: null },
    });
    return count === 1;
  },

  /** Queues an event (webhook.test) through the outbox, as every change does. */
  queueEvent(input: WriteEventInput) {
    return prisma.$transaction((tx) => writeEvent(tx, input));
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

  /** A delivery of the subscription, by its id or the id of one of its attempts. */
  findDelivery(subscriptionId: string, id: string) {
    return prisma.delivery.findFirst({
      where: { subscriptionId, OR: [{ id }, { attempts: { some: { id } } }] },
      select: { id: true, eventId: true, subscriptionId: true, event: { select: { type: true, workspaceId: true } } },
    });
  },

  attempt(id: string) {
    return prisma.deliveryAttempt.findUnique({ where: { id } });
  },

  /** Subscriptions that are receiving again but still have held deliveries (a release that did not start). */
  async receivingWithHeld(): Promise<string[]> {
    const rows = await prisma.delivery.findMany({
      where: { status: 'held', subscription: { condition: 'receiving', ...live } },
      distinct: ['subscriptionId'],
      select: { subscriptionId: true },
      take: 100,
    });
    return rows.map((r) => r.subscriptionId);
  },

  // The outbox relay.

  /**
   * Takes up to `limit` unrelayed events in commit order that no other relay holds, for `leaseMs`.
   * Ordered by ("relayedAt", "seq"), the same order as "seq" for these rows, so that the planner
   * walks the ("relayedAt", "seq") index from its NULL end: ordered by "seq" alone it may walk
   * the "seq" index and filter out every event ever relayed (200 ms a claim with 330,000 relayed
   * events, against 5 ms).
   */
  claimEvents(limit: number, leaseMs: number): Promise<ClaimedEvent[]> {
    return prisma.$queryRaw<ClaimedEvent[]>`
      UPDATE "Event" SET "relayLeaseUntil" = now() + make_interval(secs => ${leaseMs / 1000})
       WHERE "id" IN (
         SELECT "id" FROM "Event"
          WHERE "relayedAt" IS NULL AND ("relayLeaseUntil" IS NULL OR "relayLeaseUntil" < now())
          ORDER BY "relayedAt", "seq" LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
      RETURNING "id", "seq", "type", "workspaceId", "boardId", "targetSubscriptionId", "traceparent"`;
  },

  /** Subscriptions that may get new deliveries (receiving, or paused: those are held). */
  subscriptionsForRelay(workspaceIds: number[]) {
    return prisma.webhookSubscription.findMany({
      where: { workspaceId: { in: workspaceIds }, condition: { not: 'disabled' }, ...live },
      select: { id: true, workspaceId: true, events: true, boardIds: true },
    });
  },

  /** The deliveries of (event, subscription) pairs, created once however often this runs. */
  async createDeliveries(pairs: { eventId: string; subscriptionId: string; workflowId: string }[]) {
    if (!pairs.length) return [];
    await prisma.delivery.createMany({ data: pairs.map((p) => ({ id: newId('dlv'), ...p })), skipDuplicates: true });
    const wanted = new Set(pairs.map((p) => p.workflowId));
    const rows = await prisma.delivery.findMany({
      where: { eventId: { in: [...new Set(pairs.map((p) => p.eventId))] } },
      select: { id: true, eventId: true, subscriptionId: true, workflowId: true },
    });
    return rows.filter((r) => wanted.has(r.workflowId));
  },

  markRelayed(eventIds: string[], at: Date) {
    return prisma.event.updateMany({ where: { id: { in: eventIds } }, data: { relayedAt: at, relayLeaseUntil: null } });
  },

  releaseLease(eventIds: string[]) {
    return prisma.event.updateMany({ where: { id: { in: eventIds }, relayedAt: null }, data: { relayLeaseUntil: null } });
  },
};
