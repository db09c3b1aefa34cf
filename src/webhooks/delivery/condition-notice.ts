// The in-app notices of a subscription's change of condition that the service made on its own (a
// pause after failures, a disable after 410 Gone), written in the transaction of the change
// (delivery.repository.ts); the e-mail goes after it commits (condition-notice-mail.ts).
import type { Prisma } from '../../generated/prisma/client.ts';

/** An administrator is told of one subscription's pause (or disable) at most once in this time (in-app and e-mail). */
export const CONDITION_NOTICE_INTERVAL_MS = 60 * 60 * 1000;

export type ConditionNoticeKind = 'webhook.paused' | 'webhook.disabled';

export interface ConditionNotice {
  kind: ConditionNoticeKind;
  subscription: { id: string; url: string; workspaceId: number };
  recipients: { notificationId: number; email: string | null; fullName: string }[];
}

const TITLES: Record<ConditionNoticeKind, string> = { 'webhook.paused': 'Webhook paused', 'webhook.disabled': 'Webhook disabled' };

/**
 * Writes the notice for each administrator whose role opens the subscription and who was not told
 * of this kind of change of it in the last CONDITION_NOTICE_INTERVAL_MS: pausing (or enabling) and
 * failing again must not flood anyone.
 */
export async function writeConditionNotice(
  tx: Prisma.TransactionClient,
  kind: ConditionNoticeKind,
  subscriptionId: string,
  at: Date,
  text: (url: string) => { body: string; data: Record<string, Prisma.InputJsonValue> },
): Promise<ConditionNotice> {
  const sub = await tx.webhookSubscription.findUniqueOrThrow({ where: { id: subscriptionId }, select: { id: true, url: true, workspaceId: true, boardIds: true } });
  const recently = { kind, createdAt: { gt: new Date(at.getTime() - CONDITION_NOTICE_INTERVAL_MS) }, data: { path: ['subscriptionId'], equals: sub.id } };
  // Only administrators whose role opens the subscription (every board, or all of its boards: webhook.service visibleTo) get a
  // notice written: the list and the e-mail also check when read (notification.repository.ts), but no row names its URL to anyone else.
  const opens = [{ isAdmin: true }, { allBoards: true }, ...(sub.boardIds.length ? [{ AND: sub.boardIds.map((boardId) => ({ boards: { some: { boardId } } })) }] : [])];
  const admins = await tx.user.findMany({
    where: { workspaceId: sub.workspaceId, isAdmin: true, kind: 'human', deactivatedAt: null, notifications: { none: recently }, role: { OR: opens } },
    select: { id: true, email: true, fullName: true },
    orderBy: { id: 'asc' },
  });
  const { body, data } = text(sub.url);
  const recipients: ConditionNotice['recipients'] = [];
  for (const admin of admins) {
    const notification = await tx.notification.create({
      data: {
        workspaceId: sub.workspaceId,
        userId: admin.id,
        kind,
        title: TITLES[kind],
        body,
        link: `/settings/webhooks/${sub.id}`,
        data: { subscriptionId: sub.id, url: sub.url, ...data },
      },
    });
    recipients.push({ notificationId: notification.id, email: admin.email, fullName: admin.fullName });
  }
  return { kind, subscription: { id: sub.id, url: sub.url, workspaceId: sub.workspaceId }, recipients };
}
