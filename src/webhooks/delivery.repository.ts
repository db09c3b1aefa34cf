// Data access of the delivery engine: deliveries (one event for one subscription), their
// attempts, and the subscription health that every attempt updates.
import { prisma } from '../db/db.ts';
import { newId } from '../ids.ts';
import type { AttemptTrigger, DeliveryStatus, Prisma } from '../generated/prisma/client.ts';
import { deliveryWorkflowId } from '../../workflows/delivery/ids.ts';

/** Consecutive failed attempts that pause a subscription. */
export const PAUSE_AFTER_FAILURES = 20;

export interface RecordAttemptInput {
  deliveryId: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  /** The scheduled attempt's number (1..7); null for a manual re-send, which continues the count. */
  attempt: number | null;
  trigger: AttemptTrigger;
  outcome: 'succeeded' | 'failed' | 'gone';
  /** A failed scheduled attempt with none left: the delivery has failed. */
  lastScheduled: boolean;
  httpStatus: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  payload: string;
  attemptedAt: Date;
  nextAttemptAt: Date | null;
  workflowId: string;
}

export interface PausedNotice {
  subscription: { id: string; url: string; workspaceId: number };
  recipients: { notificationId: number; email: string | null; fullName: string }[];
}

const cancellable: DeliveryStatus[] = ['pending', 'held'];

export const deliveryRepository = {
  /** The delivery of an event to a subscription, created once whatever the number of calls. */
  create(eventId: string, subscriptionId: string) {
    return prisma.delivery.upsert({
      where: { eventId_subscriptionId: { eventId, subscriptionId } },
      create: { id: newId('dlv'), eventId, subscriptionId, workflowId: deliveryWorkflowId(eventId, subscriptionId) },
      update: {},
    });
  },

  /** Everything one attempt needs; `scheduledAttempt` also finds that attempt if it was already recorded. */
  findForAttempt(deliveryId: string, scheduledAttempt: number | null) {
    return prisma.delivery.findUnique({
      where: { id: deliveryId },
      include: {
        event: { select: { id: true, type: true, payload: true, workspaceId: true } },
        subscription: {
          select: { id: true, url: true, condition: true, deletedAt: true, secret: true, previousSecret: true, secretRotatedAt: true },
        },
        attempts:
          scheduledAttempt === null
            ? false
            : { where: { attempt: scheduledAttempt, trigger: { not: 'manual' } }, select: { id: true, status: true, httpStatus: true }, take: 1 },
      },
    });
  },

  /**
   * Marks the delivery held if its subscription is paused, deciding under the subscription's row
   * lock: a resume either commits first (then this sees `receiving` and the attempt goes out) or
   * waits for this commit (then the release that follows the resume finds the delivery held).
   */
  holdIfPaused(deliveryId: string, subscriptionId: string): Promise<boolean> {
    return prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ condition: string }[]>`
        SELECT "condition"::text AS "condition" FROM "WebhookSubscription" WHERE "id" = ${subscriptionId} FOR UPDATE`;
      if (row?.condition !== 'paused') return false;
      await tx.delivery.update({ where: { id: deliveryId }, data: { status: 'held', nextAttemptAt: null } });
      return true;
    });
  },

  cancel(deliveryId: string) {
    return prisma.delivery.updateMany({ where: { id: deliveryId, status: { in: cancellable } }, data: { status: 'cancelled', nextAttemptAt: null } });
  },

  /**
   * Records one HTTP try and, in the same transaction, what it means: the delivery's status and
   * the subscription's health (a success resets the failure count; 20 failures in a row pause
   * the subscription and notify its administrators; 410 disables it and cancels what is pending).
   */
  recordAttempt(input: RecordAttemptInput) {
    return prisma.$transaction(async (tx) => {
      const attempt =
        input.attempt ??
        ((await tx.deliveryAttempt.aggregate({ where: { deliveryId: input.deliveryId }, _max: { attempt: true } }))._max.attempt ?? 0) + 1;
      const status: DeliveryStatus = input.outcome === 'succeeded' ? 'succeeded' : 'failed';
      const row = await tx.deliveryAttempt.create({
        data: {
          id: newId('att'),
          deliveryId: input.deliveryId,
          subscriptionId: input.subscriptionId,
          eventId: input.eventId,
          eventType: input.eventType,
          attempt,
          trigger: input.trigger,
          status,
          httpStatus: input.httpStatus,
          durationMs: input.durationMs,
          responseExcerpt: input.responseExcerpt,
          error: input.error,
          payload: input.payload,
          attemptedAt: input.attemptedAt,
          nextAttemptAt: input.nextAttemptAt,
          workflowId: input.workflowId,
        },
      });
      await tx.delivery.update({ where: { id: input.deliveryId }, data: { attemptCount: { increment: 1 }, ...deliveryChange(input) } });

      let paused: PausedNotice | null = null;
      if (input.outcome === 'succeeded') {
        // Healthy subscriptions (the usual case) are not written at all, so concurrent deliveries do not queue on the row.
        await tx.webhookSubscription.updateMany({ where: { id: input.subscriptionId, consecutiveFailures: { gt: 0 } }, data: { consecutiveFailures: 0 } });
      } else if (input.outcome === 'gone') {
        await tx.webhookSubscription.updateMany({
          where: { id: input.subscriptionId, condition: { not: 'disabled' } },
          data: { condition: 'disabled', disabledAt: input.attemptedAt, conditionReason: 'gone', consecutiveFailures: { increment: 1 } },
        });
        await tx.delivery.updateMany({
          where: { subscriptionId: input.subscriptionId, status: { in: cancellable } },
          data: { status: 'cancelled', nextAttemptAt: null },
        });
      } else {
        const sub = await tx.webhookSubscription.update({
          where: { id: input.subscriptionId },
          data: { consecutiveFailures: { increment: 1 } },
          select: { consecutiveFailures: true },
        });
        if (sub.consecutiveFailures >= PAUSE_AFTER_FAILURES) paused = await pauseForFailures(tx, input.subscriptionId, input.attemptedAt);
      }
      return { attemptId: row.id, attempt, paused };
    });
  },

  markEmailed(notificationIds: number[], at: Date) {
    return prisma.notification.updateMany({ where: { id: { in: notificationIds } }, data: { emailedAt: at } });
  },

  /** The held delivery of a receiving subscription that comes first in event order, if any. */
  async nextHeld(subscriptionId: string, skip: string[]) {
    return prisma.delivery.findFirst({
      where: { subscriptionId, status: 'held', id: { notIn: skip }, subscription: { condition: 'receiving', deletedAt: null } },
      orderBy: { event: { seq: 'asc' } },
      select: { id: true, workflowId: true },
    });
  },

  /** paused → receiving, with a fresh failure count. False when the subscription was not paused. */
  async resume(subscriptionId: string): Promise<boolean> {
    const { count } = await prisma.webhookSubscription.updateMany({
      where: { id: subscriptionId, condition: 'paused', deletedAt: null },
      data: { condition: 'receiving', consecutiveFailures: 0, pausedAt: null, conditionReason: null },
    });
    return count === 1;
  },
};

function deliveryChange(input: RecordAttemptInput): Prisma.DeliveryUpdateInput {
  if (input.outcome === 'succeeded') return { status: 'succeeded', nextAttemptAt: null };
  // 'gone' is settled by the cancellation of everything pending in recordAttempt.
  if (input.outcome === 'gone' || input.trigger === 'manual') return {};
  return input.lastScheduled ? { status: 'failed', nextAttemptAt: null } : { status: 'pending', nextAttemptAt: input.nextAttemptAt };
}

async function pauseForFailures(tx: Prisma.TransactionClient, subscriptionId: string, at: Date): Promise<PausedNotice | null> {
  // Only the attempt that moves it out of `receiving` notifies, however many fail at once.
  const { count } = await tx.webhookSubscription.updateMany({
    where: { id: subscriptionId, condition: 'receiving' },
    data: { condition: 'paused', pausedAt: at, conditionReason: 'failures' },
  });
  if (count === 0) return null;
  const sub = await tx.webhookSubscription.findUniqueOrThrow({ where: { id: subscriptionId }, select: { id: true, url: true, workspaceId: true } });
  const admins = await tx.user.findMany({
    where: { workspaceId: sub.workspaceId, isAdmin: true, kind: 'human', deactivatedAt: null },
    select: { id: true, email: true, fullName: true },
    orderBy: { id: 'asc' },
  });
  const recipients: PausedNotice['recipients'] = [];
  for (const admin of admins) {
    const notification = await tx.notification.create({
      data: {
        workspaceId: sub.workspaceId,
        userId: admin.id,
        kind: 'webhook.paused',
        title: 'Webhook paused',
        body: `Deliveries to ${sub.url} failed ${PAUSE_AFTER_FAILURES} times in a row, so the subscription is paused. Nothing is sent until it is resumed; events meanwhile are kept and go out on resume.`,
        link: `/settings/webhooks/${sub.id}`,
        data: { subscriptionId: sub.id, url: sub.url, consecutiveFailures: PAUSE_AFTER_FAILURES },
      },
    });
    recipients.push({ notificationId: notification.id, email: admin.email, fullName: admin.fullName });
  }
  return { subscription: sub, recipients };
}
