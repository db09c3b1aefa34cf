import { prisma } from '../db/db.ts';
import type { Prisma } from '../generated/prisma/client.ts';

type NotificationQuery = Pick<Prisma.NotificationFindManyArgs, 'include' | 'select' | 'cursor' | 'take' | 'skip'>;

export interface NewNotification {
  kind: string;
  title: string;
  body: string;
  link?: string;
  data?: Prisma.InputJsonValue;
}

export const notificationRepository = {
  createMany(workspaceId: number, userIds: number[], n: NewNotification) {
    return prisma.notification.createManyAndReturn({ data: userIds.map((userId) => ({ workspaceId, userId, ...n })) });
  },

  /** Newest first. */
  list(userId: number, unreadOnly: boolean, query: NotificationQuery) {
    return prisma.notification.findMany({ ...query, where: { userId, ...(unreadOnly ? { readAt: null } : {}) }, orderBy: { id: 'desc' } });
  },

  /** Marks it read (keeping the first reading time); null when it is not this user's. */
  async markRead(userId: number, id: number, at: Date, query: Pick<NotificationQuery, 'include' | 'select'>) {
    await prisma.notification.updateMany({ where: { id, userId, readAt: null }, data: { readAt: at } });
    return prisma.notification.findFirst({ ...query, where: { id, userId } });
  },
};
