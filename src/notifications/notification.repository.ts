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
/** Notices about a webhook subscription: they carry its id (and URL) in `data.subscriptionId`. */
const SUBSCRIPTION_NOTICE_KINDS = ['webhook.paused', 'webhook.disabled'];

/** The workspace's subscriptions a role with these boards opens: every one of their boards is among them (webhook.service.ts). */
async function openedSubscriptions(userId: number, boards: ReadonlySet<string>): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    SELECT s."id" FROM "WebhookSubscription" s
     WHERE s."workspaceId" = (SELECT u."workspaceId" FROM "User" u WHERE u."id" = ${userId})
       AND cardinality(s."boardIds") > 0 AND s."boardIds" <@ ${[...boards]}::text[]`;
  return rows.map((r) => r.id);
}

/**
 * Decided when read, not only when sent: a notice about a ticket shows only while the reader's
 * role sees the ticket's board, one about a subscription only while the role opens it (a role
 * narrowed after the notice was sent no longer shows it).
 */
async function visibleTo(userId: number, boards: ReadonlySet<string> | null): Promise<Prisma.NotificationWhereInput> {
  if (boards === null) return {};
  const subscriptions = await openedSubscriptions(userId, boards);
  return {
    OR: [
      { kind: { notIn: [...BOARD_NOTICE_KINDS, ...SUBSCRIPTION_NOTICE_KINDS] } },
      ...[...boards].map((b) => ({ kind: { in: BOARD_NOTICE_KINDS }, data: { path: ['boardId'], equals: b } })),
      ...subscriptions.map((id) => ({ kind: { in: SUBSCRIPTION_NOTICE_KINDS }, data: { path: ['subscriptionId'], equals: id } })),
    ],
  };
}

/** Webhook notices (about subscriptions) or ticket notices; null: every notice. */
export type NoticeTopic = 'webhooks' | 'tickets' | null;
const TOPIC_PREFIX = { webhooks: 'webhook.', tickets: 'ticket.' } as const;
const ofTopic = (topic: NoticeTopic): Prisma.NotificationWhereInput => (topic ? { kind: { startsWith: TOPIC_PREFIX[topic] } } : {});

/** The unread count stops here: the UI shows "999+" beyond, and the count reads at most this many rows. */
export const UNREAD_COUNT_CAP = 1000;

export const notificationRepository = {
  createMany(workspaceId: number, userIds: number[], n: NewNotification) {
    return prisma.notification.createManyAndReturn({ data: userIds.map((userId) => ({ workspaceId, userId, ...n })) });
  },

  /** A page of the user's notices; `boards`: the boards the reader sees (null: all), see visibleTo. */
  async list(userId: number, unreadOnly: boolean, page: KeysetPage, query: NotificationQuery, boards: ReadonlySet<string> | null = null, topic: NoticeTopic = null) {
    const where = { userId, ...(unreadOnly ? { readAt: null } : {}), ...ofTopic(topic), ...(await visibleTo(userId, boards)) };
    return prisma.notification.findMany({ ...query, where: { AND: [where, page.where] }, orderBy: page.orderBy, take: page.take });
  },

  /** Marks it read (keeping the first reading time); null when it is not this user's or not visible to it. */
  async markRead(userId: number, id: number, at: Date, query: NotificationQuery, boards: ReadonlySet<string> | null = null) {
    const visible = await visibleTo(userId, boards);
    await prisma.notification.updateMany({ where: { id, userId, readAt: null, ...visible }, data: { readAt: at } });
    return prisma.notification.findFirst({ ...query, where: { id, userId, ...visible } });
  },

  /** The user's unread notices of the topic that it may see, counted up to UNREAD_COUNT_CAP. */
  async unreadCount(userId: number, workspaceId: number, boards: ReadonlySet<string> | null, topic: NoticeTopic) {
    const where = { userId, workspaceId, readAt: null, ...ofTopic(topic), ...(await visibleTo(userId, boards)) };
    return prisma.notification.count({ where, take: UNREAD_COUNT_CAP });
  },

  /** Marks read, in one statement, the user's unread notices of the topic that it may see (up to `throughId`); answers how many. */
  async markAllRead(userId: number, workspaceId: number, boards: ReadonlySet<string> | null, topic: NoticeTopic, throughId: number | null, at: Date) {
    const where = { userId, workspaceId, readAt: null, ...ofTopic(topic), ...(throughId === null ? {} : { id: { lte: throughId } }), ...(await visibleTo(userId, boards)) };
    return (await prisma.notification.updateMany({ where, data: { readAt: at } })).count;
  },

  /**
   * Of these notices about a subscription (`data.subscriptionId`), those whose reader's role opens
   * it, as the reader's list would show them (visibleTo): the ones that may also go out by e-mail.
   */
  async subscriptionNoticesVisible(ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await prisma.$queryRaw<{ id: number }[]>`
      SELECT n."id" FROM "Notification" n
        JOIN "User" u ON u."id" = n."userId"
        JOIN "Role" r ON r."id" = u."roleId"
       WHERE n."id" = ANY(${ids}::int[])
         AND (r."isAdmin" OR r."allBoards" OR EXISTS (
           SELECT 1 FROM "WebhookSubscription" s
            WHERE s."id" = n."data"->>'subscriptionId' AND cardinality(s."boardIds") > 0
              AND s."boardIds" <@ ARRAY(SELECT rb."boardId" FROM "RoleBoard" rb WHERE rb."roleId" = r."id")))`;
    return new Set(rows.map((r) => r.id));
  },
};
