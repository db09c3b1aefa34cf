// Data access of the delivery engine: deliveries (one event for one subscription), their
// attempts, and the subscription health that every attempt updates.
import { prisma } from '../db/db.ts';
import { openSecret } from './secret-box.ts';
import { newId } from '../ids.ts';
import type { AttemptTrigger, DeliveryStatus, Prisma, SubscriptionCondition } from '../generated/prisma/client.ts';
import { eventWorkflowId } from '../../workflows/delivery/ids.ts';
import type { EventActor } from '../events/event.envelope.ts';
import { reportsExhaustedDelivery, writeConditionEvent, writeDeliveryFailedEvent } from './operational-events.ts';

/** Consecutive failed attempts that pause a subscription. */
export const PAUSE_AFTER_FAILURES = 20;
/** An administrator is told of one subscription's pause at most once in this time (in-app and e-mail). */
export const PAUSED_NOTICE_INTERVAL_MS = 60 * 60 * 1000;

interface RecordAttemptInput {
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
  /** What the attempt waited for before it went out (the subscription's bound, a Retry-After). */
  waited: { reason: string; ms: number } | null;
}

export interface PausedNotice {
  subscription: { id: string; url: string; workspaceId: number };
  recipients: { notificationId: number; email: string | null; fullName: string }[];
}

const cancellable: DeliveryStatus[] = ['pending', 'held'];

/** What findForAttempt loads for one attempt. */
export interface AttemptContext {
  id: string;
  status: DeliveryStatus;
  event: { id: string; seq: bigint; type: string; payload: unknown; workspaceId: number };
  subscription: {
    id: string;
    url: string;
    condition: SubscriptionCondition;
    deletedAt: Date | null;
    secret: string;
    previousSecret: string | null;
    secretRotatedAt: Date | null;
    maxInFlight: number;
  };
  /** The scheduled attempt asked for, when it was already recorded. */
  attempts: { id: string; status: DeliveryStatus; httpStatus: number | null }[];
}

interface AttemptContextRow {
  id: string;
  status: DeliveryStatus;
  eventId: string;
  eventSeq: bigint;
  eventType: string;
  payload: unknown;
  workspaceId: number;
  subscriptionId: string;
  url: string;
  condition: SubscriptionCondition;
  deletedAt: Date | null;
  secret: string;
  previousSecret: string | null;
  secretRotatedAt: Date | null;
  maxInFlight: number;
  attemptId: string | null;
  attemptStatus: DeliveryStatus | null;
  attemptHttpStatus: number | null;
}

export const deliveryRepository = {
  /** The delivery of an event to a subscription, created once whatever the number of calls. */
  create(eventId: string, subscriptionId: string) {
    return prisma.delivery.upsert({
      where: { eventId_subscriptionId: { eventId, subscriptionId } },
      create: { id: newId('dlv'), eventId, subscriptionId, workflowId: eventWorkflowId(eventId) },
      update: {},
    });
  },

  /**
   * Everything one attempt needs, in ONE statement (it runs for every attempt); `scheduledAttempt`
   * also finds that attempt if it was already recorded.
   */
  async findForAttempt(deliveryId: string, scheduledAttempt: number | null): Promise<AttemptContext | null> {
    const [row] = await prisma.$queryRaw<AttemptContextRow[]>`
      SELECT d."id", d."status"::text AS "status",
             e."id" AS "eventId", e."seq" AS "eventSeq", e."type" AS "eventType", e."payload", e."workspaceId",
             s."id" AS "subscriptionId", s."url", s."condition"::text AS "condition", s."deletedAt", s."secret", s."previousSecret", s."secretRotatedAt", s."maxInFlight",
             a."id" AS "attemptId", a."status"::text AS "attemptStatus", a."httpStatus" AS "attemptHttpStatus"
      FROM "Delivery" d
      JOIN "Event" e ON e."id" = d."eventId"
      JOIN "WebhookSubscription" s ON s."id" = d."subscriptionId"
      LEFT JOIN LATERAL (
        SELECT "id", "status", "httpStatus" FROM "DeliveryAttempt"
        WHERE "deliveryId" = d."id" AND "attempt" = ${scheduledAttempt}::int AND "trigger" <> 'manual'
        LIMIT 1
      ) a ON true
      WHERE d."id" = ${deliveryId}`;
    if (!row) return null;
    return {
      id: row.id,
      status: row.status,
      event: { id: row.eventId, seq: BigInt(row.eventSeq), type: row.eventType, payload: row.payload, workspaceId: row.workspaceId },
      subscription: {
        id: row.subscriptionId,
        url: row.url,
        condition: row.condition,
        deletedAt: row.deletedAt,
        // Sealed in the table (secret-box.ts); activeSecrets() decides whether the previous one still signs.
        secret: openSecret(row.secret),
        previousSecret: row.previousSecret === null ? null : openSecret(row.previousSecret),
        secretRotatedAt: row.secretRotatedAt,
        maxInFlight: row.maxInFlight,
      },
      attempts: row.attemptId === null ? [] : [{ id: row.attemptId, status: row.attemptStatus!, httpStatus: row.attemptHttpStatus }],
    };
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
   * the subscription and notify its administrators; 410 disables it and cancels what is pending),
   * with the operational events of those changes (webhook.paused, webhook.disabled, and
   * webhook.delivery_failed when the last scheduled attempt failed).
   */
  async recordAttempt(input: RecordAttemptInput): Promise<{ attemptId: string; attempt: number; paused: PausedNotice | null; disabled: boolean }> {
    if (input.outcome === 'succeeded') return { ...(await recordSuccess(input)), paused: null, disabled: false };
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
          waitedReason: input.waited?.reason ?? null,
          waitedMs: input.waited?.ms ?? null,
        },
      });
      const delivery = await tx.delivery.update({ where: { id: input.deliveryId }, data: { attemptCount: { increment: 1 }, ...deliveryChange(input) }, select: { attemptCount: true } });

      let paused: PausedNotice | null = null;
      let disabled = false;
      if (input.outcome === 'succeeded') {
        // Healthy subscriptions (the usual case) are not written at all, so concurrent deliveries do not queue on the row.
        await tx.webhookSubscription.updateMany({ where: { id: input.subscriptionId, consecutiveFailures: { gt: 0 } }, data: { consecutiveFailures: 0 } });
      } else if (input.outcome === 'gone') {
        // Only the attempt that moves it to `disabled` reports it (for the metrics).
        disabled = (await tx.webhookSubscription.updateMany({
          where: { id: input.subscriptionId, condition: { not: 'disabled' } },
          data: { condition: 'disabled', disabledAt: input.attemptedAt, conditionReason: 'gone', consecutiveFailures: { increment: 1 } },
        })).count === 1;
        await tx.delivery.updateMany({
          where: { subscriptionId: input.subscriptionId, status: { in: cancellable } },
          data: { status: 'cancelled', nextAttemptAt: null },
        });
        if (disabled) await writeConditionEvent(tx, 'webhook.disabled', input.subscriptionId, 'gone', null, input.attemptedAt);
      } else {
        const sub = await tx.webhookSubscription.update({
          where: { id: input.subscriptionId },
          data: { consecutiveFailures: { increment: 1 } },
          select: { consecutiveFailures: true },
        });
        if (sub.consecutiveFailures >= PAUSE_AFTER_FAILURES) paused = await pauseForFailures(tx, input.subscriptionId, input.attemptedAt);
        if (input.lastScheduled && input.trigger === 'scheduled' && reportsExhaustedDelivery(input.eventType)) {
          await writeDeliveryFailedEvent(tx, {
            subscriptionId: input.subscriptionId,
            deliveryId: input.deliveryId,
            eventId: input.eventId,
            eventType: input.eventType,
            attempts: delivery.attemptCount,
            httpStatus: input.httpStatus,
            error: input.error,
            attemptedAt: input.attemptedAt,
          });
        }
      }
      return { attemptId: row.id, attempt, paused, disabled };
    });
  },

  markEmailed(notificationIds: number[], at: Date) {
    return prisma.notification.updateMany({ where: { id: { in: notificationIds } }, data: { emailedAt: at } });
  },

  /** The held delivery of a receiving subscription that comes first in event order, if any (its workflow is the event's). */
  async nextHeld(subscriptionId: string, skip: string[]) {
    return prisma.delivery.findFirst({
      where: { subscriptionId, status: 'held', id: { notIn: skip }, subscription: { condition: 'receiving', deletedAt: null } },
      orderBy: { event: { seq: 'asc' } },
      select: { id: true, workflowId: true },
    });
  },

  /** paused → receiving, with a fresh failure count, and its webhook.resumed event. False when the subscription was not paused. */
  resume(subscriptionId: string, actor: EventActor | null = null): Promise<boolean> {
    return prisma.$transaction(async (tx) => {
      const { count } = await tx.webhookSubscription.updateMany({
        where: { id: subscriptionId, condition: 'paused', deletedAt: null },
        data: { condition: 'receiving', consecutiveFailures: 0, pausedAt: null, conditionReason: null },
      });
      if (count === 1) await writeConditionEvent(tx, 'webhook.resumed', subscriptionId, 'manual', actor, new Date());
      return count === 1;
    });
  },
};

/**
 * recordAttempt for a 2xx, the usual case, as ONE statement (atomic without a transaction, one
 * round trip instead of five): the attempt, the delivery's status and count, and the failure
 * count reset, which leaves a healthy subscription's row untouched so that concurrent deliveries
 * do not queue on it. The columns are those of recordAttempt's transaction.
 */
async function recordSuccess(input: RecordAttemptInput): Promise<{ attemptId: string; attempt: number }> {
  const id = newId('att');
  const now = new Date().toISOString();
  const [row] = await prisma.$queryRaw<{ attempt: number }[]>`
    WITH attempt AS (
      INSERT INTO "DeliveryAttempt" ("id", "deliveryId", "subscriptionId", "eventId", "eventType", "attempt", "trigger", "status", "httpStatus",
                                     "durationMs", "responseExcerpt", "error", "payload", "attemptedAt", "nextAttemptAt", "workflowId",
                                     "waitedReason", "waitedMs")
      SELECT ${id}, ${input.deliveryId}, ${input.subscriptionId}, ${input.eventId}, ${input.eventType},
             COALESCE(${input.attempt}::int, (SELECT COALESCE(max("attempt"), 0) + 1 FROM "DeliveryAttempt" WHERE "deliveryId" = ${input.deliveryId})),
             ${input.trigger}::"AttemptTrigger", 'succeeded'::"DeliveryStatus", ${input.httpStatus}::int, ${input.durationMs}::int,
             ${input.responseExcerpt}, ${input.error}, ${input.payload}, ${input.attemptedAt.toISOString()}::timestamp(3),
             ${input.nextAttemptAt?.toISOString() ?? null}::timestamp(3), ${input.workflowId},
             ${input.waited?.reason ?? null}, ${input.waited?.ms ?? null}::int
      RETURNING "attempt"
    ), delivery AS (
      UPDATE "Delivery" SET "attemptCount" = "attemptCount" + 1, "status" = 'succeeded', "nextAttemptAt" = NULL, "updatedAt" = ${now}::timestamp(3)
      WHERE "id" = ${input.deliveryId}
    ), health AS (
      UPDATE "WebhookSubscription" SET "consecutiveFailures" = 0, "updatedAt" = ${now}::timestamp(3)
      WHERE "id" = ${input.subscriptionId} AND "consecutiveFailures" > 0
    )
    SELECT "attempt" FROM attempt`;
  return { attemptId: id, attempt: row.attempt };
}

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
  await writeConditionEvent(tx, 'webhook.paused', subscriptionId, 'failures', null, at);
  const sub = await tx.webhookSubscription.findUniqueOrThrow({ where: { id: subscriptionId }, select: { id: true, url: true, workspaceId: true } });
  // Pausing, resuming and failing again must not flood anyone: one notice per hour per administrator.
  const recently = { kind: 'webhook.paused', createdAt: { gt: new Date(at.getTime() - PAUSED_NOTICE_INTERVAL_MS) }, data: { path: ['subscriptionId'], equals: sub.id } };
  const admins = await tx.user.findMany({
    where: { workspaceId: sub.workspaceId, isAdmin: true, kind: 'human', deactivatedAt: null, notifications: { none: recently } },
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
