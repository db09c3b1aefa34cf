// Data access of tickets, their comments and history. The service runs each change in one
// transaction (`transaction`) and hands its client to the writing functions here.
import { prisma } from '../db/db.ts';
import type { Channel, Prisma } from '../generated/prisma/client.ts';
import type { FieldChange } from '../events/event.envelope.ts';
import { commentInclude, historyInclude, ticketInclude, type FieldValue, type HistoryAction } from './ticket.representation.ts';
import type { KeysetPage } from './ticket.paging.ts';

export type Tx = Prisma.TransactionClient;

const boardInclude = {
  fields: { orderBy: { position: 'asc' } },
  states: { orderBy: { position: 'asc' } },
} as const satisfies Prisma.BoardInclude;

export type BoardWithRules = Prisma.BoardGetPayload<{ include: typeof boardInclude }>;

/** Which tickets a caller sees: its workspace, and the boards its role sees (`null`: all). */
export interface TicketScope {
  workspaceId: number;
  boardIds: string[] | null;
}

const scopeWhere = (scope: TicketScope): Prisma.TicketWhereInput => ({
  workspaceId: scope.workspaceId,
  ...(scope.boardIds ? { boardId: { in: scope.boardIds } } : {}),
});

export interface TicketListFilter {
  boardId?: string;
  state?: string;
  updatedSince?: Date;
}

export const ticketRepository = {
  /** Interactive transaction; generous waits so a burst of writes queues instead of failing. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return prisma.$transaction(fn, { maxWait: 10_000, timeout: 15_000 });
  },

  findBoard(workspaceId: number, boardId: string, db: Tx = prisma) {
    return db.board.findFirst({ where: { id: boardId, workspaceId }, include: boardInclude });
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
    return tx.ticket.findFirst({ where: { ...scopeWhere(scope), id }, include: { ...ticketInclude, board: { include: boardInclude } } });
  },

  listTickets(scope: TicketScope, filter: TicketListFilter, page: KeysetPage) {
    const and: Prisma.TicketWhereInput[] = [scopeWhere(scope), page.where];
    if (filter.boardId) and.push({ boardId: filter.boardId });
    if (filter.state) and.push({ OR: [{ stateId: filter.state }, { state: { name: filter.state } }] });
    if (filter.updatedSince) and.push({ updatedAt: { gte: filter.updatedSince } });
    return prisma.ticket.findMany({ where: { AND: and }, orderBy: page.orderBy, take: page.take, include: ticketInclude });
  },

  insertTicket(
    tx: Tx,
    data: {
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
    },
  ) {
    return tx.ticket.create({ data: { ...data, fields: data.fields as unknown as Prisma.InputJsonArray } });
  },

  updateTicket(
    tx: Tx,
    id: number,
    data: { subject?: string; description?: string; priority?: string; stateId?: string; fields?: FieldValue[] },
  ) {
    const { fields, ...rest } = data;
    return tx.ticket.update({
      where: { id },
      data: { ...rest, ...(fields ? { fields: fields as unknown as Prisma.InputJsonArray } : {}) },
      include: ticketInclude,
    });
  },

  /** A comment is activity on the ticket: it moves `updatedAt`, so `updatedSince` finds it. */
  touchTicket(tx: Tx, id: number, at: Date) {
    return tx.ticket.update({ where: { id }, data: { updatedAt: at }, include: ticketInclude });
  },

  insertHistory(tx: Tx, data: { ticketId: number; actorId: number; channel: Channel; action: HistoryAction; changes: FieldChange[] }) {
    return tx.ticketHistoryEntry.create({ data: { ...data, changes: data.changes as unknown as Prisma.InputJsonArray }, select: { id: true } });
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

  /** In-app notices to the workspace's administrators (people), except the one who acted. */
  async notifyAdmins(
    tx: Tx,
    exceptUserId: number,
    notice: { workspaceId: number; kind: string; title: string; body: string; link: string; data: Prisma.InputJsonObject },
  ) {
    const admins = await tx.user.findMany({
      where: { workspaceId: notice.workspaceId, isAdmin: true, kind: 'human', deactivatedAt: null, id: { not: exceptUserId } },
      select: { id: true },
    });
    if (admins.length) await tx.notification.createMany({ data: admins.map((a) => ({ ...notice, userId: a.id })) });
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
