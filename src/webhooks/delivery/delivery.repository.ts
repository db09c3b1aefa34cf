// Data access of the delivery engine: deliveries (one event for one subscription), their
// attempts, and the subscription health that every attempt updates.
import { prisma } from '../../db/db.ts';
import { openSecret } from '../message/secret-box.ts';
import { openDestination } from '../message/destinations/stored.ts';
import type { BrokerDestination } from '../message/destinations/settings.ts';
import { newId } from '../../ids.ts';
import type { AttemptTrigger, DeliveryStatus, Prisma, SubscriptionCondition } from '../../generated/prisma/client.ts';
import { reportsExhaustedDelivery, writeConditionEvent, writeDeliveryFailedEvent } from './operational-events.ts';
import { writeConditionNotice, type ConditionNotice } from './condition-notice.ts';
import type { WaitReason } from './wait.ts';

/** Consecutive failed attempts that pause a subscription. */
export const PAUSE_AFTER_FAILURES = 20;

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
  /** The run of that workflow that made the attempt. */
  workflowRunId?: string | null;
  /** What the attempt waited for before it went out (the subscription's bound, a Retry-After). */
  waited: { reason: WaitReason; ms: number } | null;
  /**
   * The batch's claim (src/webhooks/delivery/queue.repository.ts): the attempt is recorded only while
   * the delivery still carries it, and the claim is cleared with it. null: unfenced (an attempt
   * written outside a batch, as tests do).
   */
  fence: string | null;
  /** A manual attempt: the workflows it answers, taken off the delivery's manual requests with the record. */
  served?: string[];
}

/** One 2xx of a delivery run's batch (recordSuccesses). */
export interface SuccessItem {
  attemptId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  trigger: AttemptTrigger;
  httpStatus: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  payload: string;
  attemptedAt: Date;
  workflowId: string;
  workflowRunId?: string | null;
  waited: { reason: WaitReason; ms: number } | null;
}

const cancellable: DeliveryStatus[] = ['pending', 'held'];

/** The subscription's side of an attempt: where and how it is sent (one shape for the row and the context). */
interface AttemptSubscription {
  url: string;
  condition: SubscriptionCondition;
  deletedAt: Date | null;
  secret: string;
  previousSecret: string | null;
  secretRotatedAt: Date | null;
  maxInFlight: number;
  /** Its retry schedule as stored (retry-schedule.ts); null: the default. */
  retrySchedule: unknown;
}

/** Where an attempt goes when it is not an HTTPS POST: the broker destination, its credentials opened (null: https to `url`). */
interface AttemptDestination {
  destination: BrokerDestination | null;
}

/** What findForAttempt loads for one attempt. */
export interface AttemptContext {
  id: string;
  status: DeliveryStatus;
  /** full or thin, as the relay wrote the delivery (thin-payload.ts). */
  payloadMode: string;
  event: { id: string; seq: bigint; type: string; payload: unknown; workspaceId: number };
  subscription: AttemptSubscription & AttemptDestination & { id: string };
}

/** The same, as its one statement answers it (flat). */
type AttemptContextRow = Pick<AttemptContext, 'id' | 'status' | 'payloadMode'> &
  AttemptSubscription & { eventId: string; eventSeq: bigint; eventType: string; payload: unknown; workspaceId: number; subscriptionId: string; destinationType: string; destination: unknown; destinationCredentials: string | null };

export const deliveryRepository = {
  /** Everything the attempts of a batch need, in ONE statement (it runs for every batch). */
  async findForAttempts(deliveryIds: string[]): Promise<AttemptContext[]> {
    if (!deliveryIds.length) return [];
    const rows = await prisma.$queryRaw<AttemptContextRow[]>`
      SELECT d."id", d."status"::text AS "status", d."payloadMode",
             e."id" AS "eventId", e."seq" AS "eventSeq", e."type" AS "eventType", e."payload", e."workspaceId",
             s."id" AS "subscriptionId", s."url", s."condition"::text AS "condition", s."deletedAt", s."secret", s."previousSecret", s."secretRotatedAt", s."maxInFlight", s."retrySchedule",
             s."destinationType", s."destination", s."destinationCredentials"
      FROM "Delivery" d
      JOIN "Event" e ON e."id" = d."eventId"
      JOIN "WebhookSubscription" s ON s."id" = d."subscriptionId"
      WHERE d."id" = ANY(${deliveryIds}::text[])`;
    return rows.map((row) => ({
      id: row.id,
      status: row.status,
      payloadMode: row.payloadMode,
      event: { id: row.eventId, seq: BigInt(row.eventSeq), type: row.eventType, payload: row.payload, workspaceId: row.workspaceId },
      subscription: {
        id: row.subscriptionId,
        url: row.url,
        condition: row.condition,
        deletedAt: row.deletedAt,
        // Sealed in the table (secret-box.ts); activeSecrets() decides whether the previous one still signs.
        secret: openSecret(row.secret, { subscriptionId: row.subscriptionId, column: 'secret' }),
        previousSecret: row.previousSecret === null ? null : openSecret(row.previousSecret, { subscriptionId: row.subscriptionId, column: 'previousSecret' }),
        secretRotatedAt: row.secretRotatedAt,
        maxInFlight: row.maxInFlight,
        retrySchedule: row.retrySchedule ?? null,
        destination: openDestination({ id: row.subscriptionId, destinationType: row.destinationType, destination: row.destination, destinationCredentials: row.destinationCredentials }),
      },
    }));
  },

  async findForAttempt(deliveryId: string): Promise<AttemptContext | null> {
    return (await deliveryRepository.findForAttempts([deliveryId]))[0] ?? null;
  },

  /**
   * Records one HTTP try and, in the same transaction, what it means: the delivery's status and
   * the subscription's health (a success resets the failure count; 20 failures in a row pause
   * the subscription and notify its administrators; 410 disables it, cancels what is pending and
   * notifies them too),
   * with the operational events of those changes (webhook.paused, webhook.disabled, and
   * webhook.delivery_failed when the last scheduled attempt failed).
   */
  async recordAttempt(input: RecordAttemptInput): Promise<{ attemptId: string; attempt: number; paused: ConditionNotice | null; disabled: ConditionNotice | null } | null> {
    return prisma.$transaction(async (tx) => {
      // Fenced: a retry of this batch took the delivery over; what it records stands. A manual
      // attempt leaves the scheduled count alone and takes the requests it answers off the delivery
      // (those that came after its claim stay, for the next attempt).
      const served = input.served ?? [];
      const mine = input.fence === null ? 1 : await tx.$executeRaw`
        UPDATE "Delivery"
           SET "claim" = NULL, "scheduledAttempts" = COALESCE(${input.attempt}::int, "scheduledAttempts"),
               "manualRequests" = ARRAY(SELECT r FROM unnest("manualRequests") WITH ORDINALITY AS m(r, i) WHERE r <> ALL(${served}::text[]) ORDER BY i),
               "manualRequestedAt" = CASE WHEN "manualRequests" <@ ${served}::text[] THEN NULL ELSE "manualRequestedAt" END
         WHERE "id" = ${input.deliveryId} AND "claim" = ${input.fence}`;
      if (mine === 0) return null;
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
          workflowRunId: input.workflowRunId ?? null,
          waitedReason: input.waited?.reason ?? null,
          waitedMs: input.waited?.ms ?? null,
        },
      });
      const delivery = await tx.delivery.update({ where: { id: input.deliveryId }, data: { attemptCount: { increment: 1 }, ...deliveryChange(input) }, select: { attemptCount: true } });

      let paused: ConditionNotice | null = null;
      let disabled: ConditionNotice | null = null;
      if (input.outcome === 'succeeded') {
        // Healthy subscriptions (the usual case) are not written at all, so concurrent deliveries do not queue on the row.
        await tx.webhookSubscription.updateMany({ where: { id: input.subscriptionId, consecutiveFailures: { gt: 0 } }, data: { consecutiveFailures: 0 } });
      } else if (input.outcome === 'gone') {
        // An HTTPS endpoint's 410, or a broker's refusal for good (no such queue, access denied).
        const reason = input.httpStatus === 410 ? 'gone' : 'rejected';
        // Only the attempt that moves it to `disabled` reports it (the metrics, the notice).
        const moved = (await tx.webhookSubscription.updateMany({
          where: { id: input.subscriptionId, condition: { not: 'disabled' } },
          data: { condition: 'disabled', disabledAt: input.attemptedAt, conditionReason: reason, consecutiveFailures: { increment: 1 } },
        })).count === 1;
        await tx.delivery.updateMany({
          where: { subscriptionId: input.subscriptionId, status: { in: cancellable } },
          data: { status: 'cancelled', nextAttemptAt: null },
        });
        if (moved) {
          await writeConditionEvent(tx, 'webhook.disabled', input.subscriptionId, reason, null, input.attemptedAt);
          disabled = await writeConditionNotice(tx, 'webhook.disabled', input.subscriptionId, input.attemptedAt, (url) => ({
            body: `${url} ${reason === 'gone' ? 'answered 410 Gone' : `refused the delivery for good (${input.error ?? 'a permanent error'})`}, so the subscription is disabled and its waiting deliveries are cancelled. Nothing is sent until it is enabled; events meanwhile are not delivered.`,
            data: { reason },
          }));
        }
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

  /**
   * The 2xx answers of one batch of a delivery run, in ONE statement: each delivery still carrying
   * `fence` gets its attempt, `succeeded` and its claim cleared (the others were taken over by a
   * retry of the batch, which records them); the subscription's failure count is reset if it was
   * not 0. Returns the deliveries recorded.
   */
  async recordSuccesses(subscriptionId: string, fence: string, items: SuccessItem[]): Promise<string[]> {
    if (!items.length) return [];
    const now = new Date().toISOString();
    const col = <K extends keyof SuccessItem>(k: K) => items.map((i) => i[k]);
    const rows = await prisma.$queryRaw<{ id: string }[]>`
      WITH x AS (
        SELECT * FROM unnest(${col('attemptId')}::text[], ${col('deliveryId')}::text[], ${col('eventId')}::text[], ${col('eventType')}::text[],
                             ${col('attempt')}::int[], ${col('trigger')}::text[], ${col('httpStatus')}::int[], ${col('durationMs')}::int[],
                             ${col('responseExcerpt')}::text[], ${col('payload')}::text[], ${items.map((i) => i.attemptedAt.toISOString())}::timestamp(3)[],
                             ${col('workflowId')}::text[], ${items.map((i) => i.workflowRunId ?? null)}::text[], ${items.map((i) => i.waited?.reason ?? null)}::text[], ${items.map((i) => i.waited?.ms ?? null)}::int[])
          AS t("attemptId", "deliveryId", "eventId", "eventType", "attempt", "trigger", "httpStatus", "durationMs", "responseExcerpt", "payload",
               "attemptedAt", "workflowId", "workflowRunId", "waitedReason", "waitedMs")
      ), mine AS (
        UPDATE "Delivery" d SET "attemptCount" = d."attemptCount" + 1, "scheduledAttempts" = x."attempt", "status" = 'succeeded',
                                "nextAttemptAt" = NULL, "claim" = NULL, "updatedAt" = ${now}::timestamp(3)
          FROM x WHERE d."id" = x."deliveryId" AND d."claim" = ${fence}
        RETURNING d."id"
      ), attempt AS (
        INSERT INTO "DeliveryAttempt" ("id", "deliveryId", "subscriptionId", "eventId", "eventType", "attempt", "trigger", "status", "httpStatus",
                                       "durationMs", "responseExcerpt", "error", "payload", "attemptedAt", "nextAttemptAt", "workflowId",
                                       "workflowRunId", "waitedReason", "waitedMs")
        SELECT x."attemptId", x."deliveryId", ${subscriptionId}, x."eventId", x."eventType", x."attempt", x."trigger"::"AttemptTrigger",
               'succeeded'::"DeliveryStatus", x."httpStatus", x."durationMs", x."responseExcerpt", NULL, x."payload", x."attemptedAt", NULL,
               x."workflowId", x."workflowRunId", x."waitedReason", x."waitedMs"
          FROM x JOIN mine ON mine."id" = x."deliveryId"
      ), health AS (
        UPDATE "WebhookSubscription" SET "consecutiveFailures" = 0, "updatedAt" = ${now}::timestamp(3)
         WHERE "id" = ${subscriptionId} AND "consecutiveFailures" > 0 AND EXISTS (SELECT 1 FROM mine)
      )
      SELECT "id" FROM mine`;
    return rows.map((r) => r.id);
  },

  markEmailed(notificationIds: number[], at: Date) {
    return prisma.notification.updateMany({ where: { id: { in: notificationIds } }, data: { emailedAt: at } });
  },
};

function deliveryChange(input: RecordAttemptInput): Prisma.DeliveryUpdateInput {
  if (input.outcome === 'succeeded') return { status: 'succeeded', nextAttemptAt: null };
  // 'gone' is settled by the cancellation of everything pending in recordAttempt.
  if (input.outcome === 'gone' || input.trigger === 'manual') return {};
  return input.lastScheduled ? { status: 'failed', nextAttemptAt: null } : { status: 'pending', nextAttemptAt: input.nextAttemptAt };
}

async function pauseForFailures(tx: Prisma.TransactionClient, subscriptionId: string, at: Date): Promise<ConditionNotice | null> {
  // Only the attempt that moves it out of `receiving` notifies, however many fail at once.
  const { count } = await tx.webhookSubscription.updateMany({
    where: { id: subscriptionId, condition: 'receiving' },
    data: { condition: 'paused', pausedAt: at, conditionReason: 'failures' },
  });
  if (count === 0) return null;
  await writeConditionEvent(tx, 'webhook.paused', subscriptionId, 'failures', null, at);
  return writeConditionNotice(tx, 'webhook.paused', subscriptionId, at, (url) => ({
    body: `Deliveries to ${url} failed ${PAUSE_AFTER_FAILURES} times in a row, so the subscription is paused. Nothing is sent until it is resumed; events meanwhile are kept and go out on resume.`,
    data: { consecutiveFailures: PAUSE_AFTER_FAILURES },
  }));
}
