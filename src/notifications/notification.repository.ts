import { prisma } from '../db/db.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { KeysetPage } from '../paging/page-by-key.ts';

type NotificationQuery = Pick<Prisma.NotificationFindManyArgs, 'include' | 'select'>;

export interface NewNotification {
  kind: string;
  title: string;
  body: string;
  link?: string;
  data?: Prisma.InputJsonValue;
}

/** Notices about a ticket: they carry the ticket's board in `data.boardId`. */
const BOARD_NOTICE_KINDS = ['ticket.created'];

/**
 * Decided when read, not only when sent: a notice about a ticket shows only while the reader's
 * role sees the ticket's board (a role narrowed after the notice was sent no longer shows it).
 */
function visibleTo(boards: ReadonlySet<string> | null): Prisma.NotificationWhereInput {
  if (boards === null) return {};
  return { OR: [{ kind: { notIn: BOARD_NOTICE_KINDS } }, ...[...boards].map((b) => ({ data: { path: ['boardId'], equals: b } }))] };
}

export const notificationRepository = {
  createMany(workspaceId: number, userIds: number[], n: NewNotification) {
    return prisma.notification.createManyAndReturn({ data: userIds.map((userId) => ({ workspaceId, userId, ...n })) });
  },

  /** A page of the user's notices; `boards`: the boards the reader sees (null: all), see visibleTo. */
  list(userId: number, unreadOnly: boolean, page: KeysetPage, query: NotificationQuery, boards: ReadonlySet<string> | null = null) {
    const where = { userId, ...(unreadOnly ? { readAt: null } : {}), ...visibleTo(boards) };
    return prisma.notification.findMany({ ...query, where: { AND: [where, page.where] }, orderBy: page.orderBy, take: page.take });
  },

  /** Marks it read (keeping the first reading time); null when it is not this user's or not visible to it. */
  async markRead(userId: number, id: number, at: Date, query: NotificationQuery, boards: ReadonlySet<string> | null = null) {
    await prisma.notification.updateMany({ where: { id, userId, readAt: null, ...visibleTo(boards) }, data: { readAt: at } });
    return prisma.notification.findFirst({ ...query, where: { id, userId, ...visibleTo(boards) } });
  },
};
