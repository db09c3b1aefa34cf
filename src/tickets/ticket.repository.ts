// Data access of tickets, their comments and history. The service runs each change in one
// transaction (`transaction`) and hands its client to the writing functions here.
import { db, prisma } from '../db/db.ts';
import { Prisma, type Channel, type StateCategory } from '../generated/prisma/client.ts';
import type { EventEnvelope, FieldChange } from '../events/event.envelope.ts';
import { eventInsertSql } from '../events/event.outbox.ts';
import { boardRulesInclude } from '../boards/board.repository.ts';
import { commentInclude, historyInclude, ticketInclude, toActor, type FieldValue, type HistoryAction, type TicketRepresentation } from './ticket.representation.ts';
import { keysetSql, sizedRows } from '../paging/keyset-sql.ts';
import type { KeysetPage } from '../paging/page-by-key.ts';

type Tx = Prisma.TransactionClient;
/**
 * Runs a ticket's writes in a transaction the caller opens, after the service's reads (a bulk
 * job's item: the ticket and the item's result commit together). Opened only for the writes: on
 * the embedded database, one connection, a read outside it would wait for it to end.
 */
export type TicketWrites = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

/** Which tickets a caller sees: its workspace, and the boards its role sees (`null`: all). */
export interface TicketScope {
  workspaceId: number;
  boardIds: string[] | null;
}

const scopeWhere = (scope: TicketScope): Prisma.TicketWhereInput => ({
  workspaceId: scope.workspaceId,
  ...(scope.boardIds ? { boardId: { in: scope.boardIds } } : {}),
});

/** A text around a new ticket's id, which only the inserting statement knows: [before, after]. */
type AroundId = readonly [string, string];

interface TicketListFilter {
  boardId?: string;
  /** The states a `state` filter (a state's id or name) stands for (stateIdsFor); empty matches nothing. */
  stateIds?: string[];
  updatedSince?: Date;
}

/** to_char's spelling of Date.prototype.toISOString. */
const ISO = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';

interface TicketPageRow {
  id: number;
  boardId: string;
  subject: string;
  description: string;
  requesterEmail: string;
  priority: string;
  fields: FieldValue[];
  channel: Channel;
  version: number;
  createdAt: string;
  updatedAt: string;
  stateId: string;
  stateName: string;
  stateCategory: StateCategory;
  creatorId: number;
  creatorName: string;
}

const fromTicketPageRow = (r: TicketPageRow): TicketRepresentation => ({
  id: r.id,
  boardId: r.boardId,
  subject: r.subject,
  description: r.description,
  state: { id: r.stateId, name: r.stateName, category: r.stateCategory },
  priority: r.priority,
  requester: { email: r.requesterEmail },
  fields: r.fields,
  channel: r.channel,
  createdBy: toActor({ id: r.creatorId, fullName: r.creatorName }),
  version: r.version,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const ticketRepository = {
  /** Interactive transaction; generous waits so a burst of writes queues instead of failing. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return prisma.$transaction(fn, { maxWait: 10_000, timeout: 15_000 });
  },

  findTicket(scope: TicketScope, id: number) {
    return prisma.ticket.findFirst({ where: { ...scopeWhere(scope), id }, include: ticketInclude });
  },

  /** Whether the caller sees the ticket, and its board. */
  findTicketRef(scope: TicketScope, id: number, db: Tx = prisma) {
    return db.ticket.findFirst({ where: { ...scopeWhere(scope), id }, select: { id: true, boardId: true } });
  },

  /** The ticket with its board's rules, its row locked until the transaction ends. */
  async lockTicket(tx: Tx, scope: TicketScope, id: number) {
    await tx.$queryRaw`SELECT id FROM "Ticket" WHERE id = ${id} AND "workspaceId" = ${scope.workspaceId} FOR UPDATE`;
    return tx.ticket.findFirst({ where: { ...scopeWhere(scope), id }, include: { ...ticketInclude, board: { include: boardRulesInclude } } });
  },

  /**
   * The workspace's states with this id or name (a name may be on several boards). Resolved
   * before the list, so that the list filters on "stateId" alone and walks an index newest first
   * and stops after a page; joined by name, it read every ticket of the workspace.
   */
  async stateIdsFor(workspaceId: number, state: string): Promise<string[]> {
    const rows = await prisma.boardState.findMany({ where: { OR: [{ id: state }, { name: state }], board: { workspaceId } }, select: { id: true } });
    return rows.map((r) => r.id);
  },

  /**
   * The tickets of a sized page (`page.where.id.in`, from listTicketSizes), in page order, with
   * their state and creator, as one joined statement on the driver (db.ts `read`). Prisma's
   * findMany with the same include ran three statements and mapped every row in its interpreter:
   * about a quarter of a GET /tickets request's CPU. Times come formatted as toISOString does
   * (the columns are timestamp(3) without zone, holding UTC), so no time zone is involved.
   */
  async listTicketPage(scope: TicketScope, page: KeysetPage): Promise<TicketRepresentation[]> {
    const ids = page.where.id?.in;
    if (!ids?.length) return [];
    const rows = await db.read<TicketPageRow>(
      `SELECT t.id, t."boardId", t.subject, t.description, t."requesterEmail", t.priority, t.fields, t.channel, t.version,
         to_char(t."createdAt", '${ISO}') AS "createdAt", to_char(t."updatedAt", '${ISO}') AS "updatedAt",
         s.id AS "stateId", s.name AS "stateName", s.category AS "stateCategory", u.id AS "creatorId", u."fullName" AS "creatorName"
       FROM "Ticket" t JOIN "BoardState" s ON s.id = t."stateId" JOIN "User" u ON u.id = t."createdById"
       WHERE t.id = ANY($1::int[]) AND t."workspaceId" = $2
       ORDER BY t.id ${page.orderBy.id === 'desc' ? 'DESC' : 'ASC'}`,
      [ids, scope.workspaceId],
    );
    return rows.map(fromTicketPageRow);
  },

  /**
   * The page's tickets with their large text in bytes, for the page budget (paging/page-budget.ts):
   * the list's filters in SQL, one statement. test/tickets runs every filter through it over REST.
   */
  listTicketSizes(scope: TicketScope, filter: TicketListFilter, page: KeysetPage) {
    let where = Prisma.sql`"workspaceId" = ${scope.workspaceId}`;
    if (scope.boardIds) where = Prisma.sql`${where} AND "boardId" = ANY(${scope.boardIds})`;
    if (filter.boardId) where = Prisma.sql`${where} AND "boardId" = ${filter.boardId}`;
    // The column is a timestamp without zone holding UTC, as Prisma writes it.
    if (filter.updatedSince) where = Prisma.sql`${where} AND "updatedAt" >= ${filter.updatedSince.toISOString()}::timestamp`;
    const sized = Prisma.sql`SELECT id, octet_length(subject) + octet_length(description) + octet_length(fields::text) + octet_length("requesterEmail") AS bytes FROM "Ticket"`;
    if (!filter.stateIds) return sizedRows(Prisma.sql`${sized} WHERE ${where} ${keysetSql(page)}`);
    if (!filter.stateIds.length) return Promise.resolve([]);
    // One walk of ("stateId", "id") per state, each stopping after a page, merged: with
    // "stateId" = ANY(…) PostgreSQL reads all of the states' tickets to sort them, since an
    // index scan over an array's values does not come out in the index's order.
    return sizedRows(Prisma.sql`
      SELECT t.id, t.bytes FROM unnest(${filter.stateIds}::text[]) AS s("stateId")
      CROSS JOIN LATERAL (${sized} WHERE ${where} AND "stateId" = s."stateId" ${keysetSql(page)}) AS t
      ORDER BY t.id ${Prisma.raw(page.orderBy.id === 'desc' ? 'DESC' : 'ASC')} LIMIT ${page.take}`);
  },

  listCommentSizes(ticketId: number, page: KeysetPage) {
    return sizedRows(Prisma.sql`SELECT id, octet_length(body) AS bytes FROM "Comment" WHERE "ticketId" = ${ticketId} ${keysetSql(page)}`);
  },

  listHistorySizes(ticketId: number, page: KeysetPage) {
    return sizedRows(Prisma.sql`SELECT id, octet_length(changes::text) AS bytes FROM "TicketHistoryEntry" WHERE "ticketId" = ${ticketId} ${keysetSql(page)}`);
  },

  /**
   * A new ticket with its history entry, an in-app notice to each of the workspace's
   * administrators (people, except the actor, whose role sees the board), its outbox event and, for a request holding an
   * Idempotency-Key, the stored answer, written by ONE statement: atomic without a transaction,
   * and one round trip instead of seven. The columns are those `tx.ticket.create`,
   * `tx.ticketHistoryEntry.create`, `tx.notification.createMany`, `writeEvent` and
   * `idempotencyRepository.complete` would write.
   *
   * The id comes from the ticket's sequence inside the statement (no round trip to take it
   * first), so the texts and JSON naming it are completed here: the notice's texts are given
   * as the parts around the id, and the id is set into the notice's data, the event's `data`
   * (the ticket representation, built with a placeholder id) and the stored answer, which is
   * that same representation. Returns the id.
   */
  async insertCreatedTicket(row: {
    workspaceId: number;
    boardId: string;
    subject: string;
    description: string;
    requesterEmail: string;
    priority: string;
    stateId: string;
    fields: FieldValue[];
    channel: Channel;
    createdById: number;
    createdAt: Date;
    notice: { kind: string; title: AroundId; body: AroundId; link: AroundId; data: Prisma.InputJsonObject };
    event: EventEnvelope;
    /** The record of the Idempotency-Key the request holds: completed with `status` and the ticket. */
    idempotency?: { recordId: number; status: number };
  }, tx?: Tx): Promise<number> {
    const at = row.createdAt.toISOString();
    const { notice, event, idempotency } = row;
    const completeClaim = idempotency
      ? Prisma.sql`, answered AS (
          UPDATE "IdempotencyRecord"
          SET "state" = 'completed', "responseStatus" = ${idempotency.status}::int, "responseBody" = (SELECT "payload" -> 'data' FROM event),
              "completedAt" = ${at}::timestamp(3)
          WHERE "id" = ${idempotency.recordId}::int AND "state" = 'in_progress'
        )`
      : Prisma.empty;
    const [created] = await (tx ?? prisma).$queryRaw<{ id: number }[]>`
      WITH ticket AS (
        INSERT INTO "Ticket" ("workspaceId", "boardId", "subject", "description", "requesterEmail", "priority", "stateId", "fields", "channel", "createdById", "createdAt", "updatedAt")
        VALUES (${row.workspaceId}::int, ${row.boardId}, ${row.subject}, ${row.description}, ${row.requesterEmail}, ${row.priority}, ${row.stateId},
                ${JSON.stringify(row.fields)}::jsonb, ${row.channel}::"Channel", ${row.createdById}::int, ${at}::timestamp(3), ${at}::timestamp(3))
        RETURNING "id"
      ), history AS (
        INSERT INTO "TicketHistoryEntry" ("ticketId", "actorId", "channel", "action", "changes", "createdAt")
        SELECT "id", ${row.createdById}::int, ${row.channel}::"Channel", 'created', '[]'::jsonb, ${at}::timestamp(3) FROM ticket
      ), notices AS (
        INSERT INTO "Notification" ("workspaceId", "userId", "kind", "title", "body", "link", "data", "createdAt")
        SELECT ${row.workspaceId}::int, u."id", ${notice.kind},
               ${notice.title[0]}::text || t."id" || ${notice.title[1]}::text,
               ${notice.body[0]}::text || t."id" || ${notice.body[1]}::text,
               ${notice.link[0]}::text || t."id" || ${notice.link[1]}::text,
               jsonb_set(${JSON.stringify(notice.data)}::jsonb, '{ticketId}', to_jsonb(t."id")), ${at}::timestamp(3)
        FROM ticket t, "User" u
        WHERE u."workspaceId" = ${row.workspaceId}::int AND u."isAdmin" AND u."kind" = 'human' AND u."deactivatedAt" IS NULL AND u."id" <> ${row.createdById}::int
          -- Only those whose role sees the board (the administrator flag does not widen what a role sees).
          AND EXISTS (SELECT 1 FROM "Role" r WHERE r."id" = u."roleId" AND (r."isAdmin" OR r."allBoards"
                      OR EXISTS (SELECT 1 FROM "RoleBoard" rb WHERE rb."roleId" = r."id" AND rb."boardId" = ${row.boardId})))
      ), event AS (
        ${eventInsertSql(event, { workspaceId: row.workspaceId, boardId: row.boardId, ticketId: 'created', targetSubscriptionId: null, occurredAt: row.createdAt })}
        RETURNING "payload"
      )${completeClaim}
      SELECT "id" FROM ticket`;
    return created.id;
  },

  /** The ticket's own columns after the change (one `UPDATE … RETURNING`): the caller has its state and creator already. */
  updateTicket(
    tx: Tx,
    id: number,
    data: { subject?: string; description?: string; priority?: string; stateId?: string; fields?: FieldValue[] },
  ) {
    const { fields, ...rest } = data;
    return tx.ticket.update({
      where: { id },
      data: { ...rest, ...(fields ? { fields: fields as unknown as Prisma.InputJsonArray } : {}), version: { increment: 1 } },
    });
  },

  /** A comment is activity on the ticket: it moves `updatedAt`, so `updatedSince` finds it. */
  touchTicket(tx: Tx, id: number, at: Date) {
    return tx.ticket.update({ where: { id }, data: { updatedAt: at, version: { increment: 1 } }, include: ticketInclude });
  },

  /** A history entry as a CTE of the statement that writes the change's event (`writeEvent`'s `alongside`), at the event's time. */
  historyCte(data: { ticketId: number; actorId: number; channel: Channel; action: HistoryAction; changes: FieldChange[] }, at: Date): Prisma.Sql {
    return Prisma.sql`history AS (
      INSERT INTO "TicketHistoryEntry" ("ticketId", "actorId", "channel", "action", "changes", "createdAt")
      VALUES (${data.ticketId}::int, ${data.actorId}::int, ${data.channel}::"Channel", ${data.action}, ${JSON.stringify(data.changes)}::jsonb, ${at.toISOString()}::timestamp(3))
    )`;
  },

  insertComment(tx: Tx, data: { ticketId: number; authorId: number; body: string; public: boolean; channel: Channel }) {
    return tx.comment.create({ data, include: commentInclude });
  },

  listComments(ticketId: number, page: KeysetPage) {
    return prisma.comment.findMany({ where: { AND: [{ ticketId }, page.where] }, orderBy: page.orderBy, take: page.take, include: commentInclude });
  },

  listHistory(ticketId: number, page: KeysetPage) {
    return prisma.ticketHistoryEntry.findMany({ where: { AND: [{ ticketId }, page.where] }, orderBy: page.orderBy, take: page.take, include: historyInclude });
  },

  /** History of the period, grouped per actor and channel (see ticketService.activityReport). */
  async activity(scope: TicketScope, from: Date, to: Date) {
    const where: Prisma.TicketHistoryEntryWhereInput = { createdAt: { gte: from, lt: to }, ticket: scopeWhere(scope) };
    const [byAction, changedTickets] = await Promise.all([
      prisma.ticketHistoryEntry.groupBy({ by: ['actorId', 'channel', 'action'], where, _count: { _all: true } }),
      prisma.ticketHistoryEntry.groupBy({ by: ['actorId', 'channel', 'ticketId'], where: { ...where, action: { not: 'created' } } }),
    ]);
    const actorIds = [...new Set(byAction.map((r) => r.actorId))];
    const actors = await prisma.user.findMany({ where: { id: { in: actorIds } }, select: { id: true, fullName: true, kind: true } });
    return { byAction, changedTickets, actors };
  },
};
