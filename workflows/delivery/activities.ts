// The delivery activities, built by a factory that receives their dependencies (the worker hands
// in the configured ones, tests their own CA and clock). One sendAttempt = one attempt: check the
// subscription, take one of its in-flight slots, sign, POST, record the attempt and the
// subscription's health, free the slot (handing it to the oldest waiting delivery).
//
// An attempt beyond the subscription's bound (in flight, rate, a receiver's Retry-After) sends
// nothing and answers `waiting` at once: its workflow waits durably, holding no worker slot.
//
// HTTP failures are results, not exceptions: the workflow's schedule is their retry. Anything
// thrown (the database is down, the worker died mid-attempt) is retried by Temporal, and a
// retry of an attempt that was already recorded returns the recorded outcome instead of sending
// again.
import { activityInfo, ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { config } from '../../src/config.ts';
import { deliveryRepository, type AttemptContext } from '../../src/webhooks/delivery.repository.ts';
import { deliveryBoundsRepository, SLOT_LEASE_MS, type BoundSettings, type BoundSignal, type GrantedSlot, type WaitReason } from '../../src/webhooks/delivery-bounds.repository.ts';
import { parseRetryAfter } from '../../src/webhooks/retry-after.ts';
import { configuredMailer, emailPausedNotice, type MailerSettings } from '../../src/webhooks/paused-notice.ts';
import { activeSecrets, signatureHeaders } from '../../src/webhooks/signing.ts';
import { createWebhookSender, deliveryBody, type SenderOptions } from '../../src/webhooks/webhook-sender.ts';
import { logger } from '../../src/logger.ts';
import { countAttempt } from '../../src/metrics/delivery-metrics.ts';
import { annotateSpan } from '../../src/tracing/tracing.ts';
import { MAX_ATTEMPTS, remainingSpanMs, retryDelay } from './schedule.ts';
import { slotSignal, type AttemptOutcome } from './signals.ts';
import { awaitHandOver, BRIEF_WAIT_MS, BRIEF_WAITERS_PER_BOUND, handOver, isFast, recordAnswer, waitsHere } from './placement.ts';

export interface DeliveryActivityDeps {
  /** Lifts the URL policy's address rule; defaults to WEBHOOK_ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets?: boolean;
  /** Extra CAs for receivers' certificates, besides the default store. */
  tls?: Pick<SenderOptions, 'ca'>;
  /**
   * The time attempts are logged at and the rotation window is judged at. Tests on the
   * time-skipping server pass its clock. (`webhook-timestamp` is always the wall clock: it is
   * what receivers compare it with.)
   */
  clock?: () => Date | Promise<Date>;
  /** E-mail for pause notices; defaults to SMTP_URL when set. null: no e-mail. */
  mailer?: MailerSettings | null;
  timeoutMs?: number;
  /**
   * Tells a waiting delivery's workflow that a slot was handed to it. Without it the waiting
   * delivery finds its slot at its next periodic look.
   */
  client?: Client;
  /** The in-flight limit and slot leases; defaults from the config. */
  bounds?: Partial<BoundSettings>;
}

export type { AttemptOutcome };

/** What the attempt waited for before it went out, for the delivery log. */
export interface Waited {
  reason: WaitReason;
  ms: number;
}

interface SendAttemptInput {
  deliveryId: string;
  /** The scheduled attempt's number (1..7); absent for a manual re-send. */
  attempt?: number;
  /** The jittered delay after this attempt should it fail (the workflow draws it); none after the last. */
  retryDelayMs?: number;
  /** An earlier call answered `rate` and reserved this start time (epoch ms) for the attempt. */
  rateReservedAt?: number;
  waited?: Waited;
  /**
   * Run as a local activity (placement.ts): send only to a receiver known to answer fast; for
   * another, take the slot and answer `remote`, for the workflow to send as a regular activity.
   */
  local?: boolean;
  /** The local activity took the slot (and the rate's start time) for this regular one. */
  placed?: boolean;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  /** Set when an attempt was recorded. */
  attemptId?: string;
  attempt?: number;
  httpStatus?: number | null;
  /** The receiver's Retry-After (429/503), in ms from the attempt. */
  retryAfterMs?: number | null;
  /** `waiting`: why, and until when (epoch ms; for the in-flight bound, which hands a slot over by signal, when to look again). */
  wait?: { reason: WaitReason; untilMs: number | null };
}

/**
 * A waiting delivery keeps its place this long; it looks again (should no release hand it a slot)
 * after LOOK_AGAIN_MS at the head of the queue, further back later (delivery-bounds.repository.ts).
 */
const WAIT_LEASE_MS = 30 * 60_000;
const LOOK_AGAIN_MS = 45_000;
/**
 * An attempt to a fast receiver that got a 2xx sends the oldest waiting delivery's attempt on its
 * behalf (its slot goes straight on), and so on: at most this many in a row, starting the last
 * within STEAL_FOR_MS, so that one local activity does not hold its workflow task long.
 */
const STEAL_AT_MOST = 50;
const STEAL_FOR_MS = 1_000;

export function createDeliveryActivities(deps: DeliveryActivityDeps = {}) {
  const sender = createWebhookSender({ allowPrivateTargets: deps.allowPrivateTargets, ca: deps.tls?.ca, timeoutMs: deps.timeoutMs });
  const clock = deps.clock ?? (() => new Date());
  const mailer = deps.mailer === undefined ? configuredMailer() : (deps.mailer ?? undefined);
  const bounds: BoundSettings = { limit: config.webhooks.maxInFlightLimit, leaseMs: SLOT_LEASE_MS, waitLeaseMs: WAIT_LEASE_MS, lookAgainMs: LOOK_AGAIN_MS, ...deps.bounds };

  /**
   * Frees the slot and tells the waiting deliveries it went to (one waiting in this worker at once,
   * others by signal; one whose workflow is gone passes it on). With `steal`, returns the waiting
   * delivery whose attempt the caller is to send on its behalf, if the release gave it one.
   */
  async function release(deliveryId: string, subscriptionId: string, now: Date, signal: BoundSignal, retryAfterUntil: Date | null, steal = false) {
    let stolen: GrantedSlot | undefined;
    let granted = await deliveryBoundsRepository.release({ deliveryId, subscriptionId, now, signal, retryAfterUntil, steal }, bounds);
    while (granted.length) {
      const next: GrantedSlot[] = [];
      for (const g of granted) {
        // Waiting in this worker: it sends itself, at once (a slot taken for it becomes its own
        // first, since its acquire would not send under a `running` slot).
        if (g.stolen && waitsHere(g.deliveryId)) {
          await deliveryBoundsRepository.unsteal(g.deliveryId);
          if (handOver(g.deliveryId) || (await tell(g))) continue;
        } else if (handOver(g.deliveryId)) continue;
        else if (g.stolen) {
          stolen = g;
          continue;
        }
        if (await tell(g)) continue;
        logger.debug({ deliveryId: g.deliveryId }, 'a waiting delivery could not be told of its slot; passing it on');
        next.push(...(await deliveryBoundsRepository.release({ deliveryId: g.deliveryId, subscriptionId, now, signal: 'none', retryAfterUntil: null }, bounds)));
      }
      granted = next;
    }
    return stolen;
  }

  /** Signals a waiting delivery's workflow that it has a slot (or that its attempt was made). False when it no longer runs. */
  async function tell(g: { deliveryId: string; workflowId: string }): Promise<boolean> {
    if (!deps.client) return true;
    try {
      await deps.client.workflow.getHandle(g.workflowId).signal(slotSignal, { deliveryId: g.deliveryId });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Sends a waiting delivery's attempt on its behalf (the release made its slot `running`), then
   * tells its workflow, which finds the attempt recorded. Returns the next one to send, if any.
   * When the attempt is not to be made after all, the slot becomes the delivery's own.
   */
  async function attemptOnBehalf(g: GrantedSlot, stealMore: boolean): Promise<GrantedSlot | undefined> {
    const ctx = g.attempt === null ? null : await deliveryRepository.findForAttempt(g.deliveryId, g.attempt);
    const { subscription } = ctx ?? {};
    if (!ctx || !subscription || ctx.attempts.length || ctx.status !== 'pending' || subscription.deletedAt || subscription.condition !== 'receiving') {
      await deliveryBoundsRepository.unsteal(g.deliveryId);
      await tell(g);
      return undefined;
    }
    const attemptedAt = await clock();
    const done = await attemptNow(ctx, {
      attempt: g.attempt!,
      retryDelayMs: g.retryDelayMs ?? undefined,
      waited: { reason: 'in_flight_bound', ms: Math.max(0, attemptedAt.getTime() - g.since.getTime()) },
      workflowId: g.workflowId,
      attemptedAt,
      steal: stealMore,
    });
    await tell(g);
    return done.stolen;
  }

  /**
   * Signs, sends and records one attempt; a scheduled one then frees its slot (with `steal`, after
   * a 2xx, possibly taking the next waiting delivery's attempt).
   */
  async function attemptNow(
    { id: deliveryId, event, subscription }: AttemptContext,
    { attempt, retryDelayMs, waited, workflowId, attemptedAt, steal }: { attempt?: number; retryDelayMs?: number; waited?: Waited; workflowId: string; attemptedAt: Date; steal: boolean },
  ): Promise<{ result: AttemptResult; stolen?: GrantedSlot }> {
    const manual = attempt === undefined;
    const body = deliveryBody(event.payload);
    const headers = signatureHeaders({ id: event.id, body, timestamp: new Date(), secrets: activeSecrets(subscription, attemptedAt) });
    const result = await sender.send(subscription.url, headers, body);
    recordAnswer(subscription.id, result.durationMs);

    const status = result.httpStatus;
    const outcome = status !== undefined && status >= 200 && status < 300 ? 'succeeded' : status === 410 ? 'gone' : 'failed';
    const lastScheduled = attempt !== undefined && attempt >= MAX_ATTEMPTS;
    // 429 and 503 are the receiver saying "too much": its Retry-After moves the next attempt.
    const overload = status === 429 || status === 503;
    const retryAfterMs = overload ? parseRetryAfter(result.retryAfter, attemptedAt) : null;
    const delay = outcome === 'failed' && attempt !== undefined && retryDelayMs !== undefined && !lastScheduled ? retryDelay(attempt, retryDelayMs, retryAfterMs) : null;
    const trigger = manual ? 'manual' : event.type === 'webhook.test' ? 'test' : 'scheduled';
    const saved = await deliveryRepository.recordAttempt({
      deliveryId,
      subscriptionId: subscription.id,
      eventId: event.id,
      eventType: event.type,
      attempt: attempt ?? null,
      trigger,
      outcome,
      lastScheduled,
      httpStatus: status ?? null,
      durationMs: result.durationMs,
      responseExcerpt: result.responseExcerpt ?? null,
      error: result.error ?? null,
      payload: body,
      attemptedAt,
      nextAttemptAt: delay ? new Date(attemptedAt.getTime() + delay.delayMs) : null,
      workflowId,
      waited: waited ?? null,
    });
    let stolen: GrantedSlot | undefined;
    if (!manual) {
      const signal: BoundSignal = outcome === 'succeeded' ? 'success' : overload ? 'overload' : 'none';
      // No attempt of the subscription before then; never longer than a delivery's whole schedule.
      const retryAfterUntil = retryAfterMs ? new Date(attemptedAt.getTime() + Math.min(retryAfterMs, remainingSpanMs(1))) : null;
      stolen = await release(deliveryId, subscription.id, await clock(), signal, retryAfterUntil, steal && outcome === 'succeeded' && !saved.paused);
    }
    countAttempt({ outcome, trigger, durationMs: result.durationMs, lastScheduled, paused: saved.paused !== null, disabled: saved.disabled });
    annotateSpan({
      'webhook.delivery.id': deliveryId,
      'webhook.event.id': event.id,
      'webhook.subscription.id': subscription.id,
      'webhook.attempt': saved.attempt,
      'webhook.outcome': outcome,
      'http.response.status_code': status,
    });
    if (saved.paused) {
      logger.warn({ subscriptionId: subscription.id }, 'webhook subscription paused after consecutive failures');
      if (mailer) await emailPausedNotice(mailer, saved.paused);
    }
    return {
      result: {
        outcome: outcome === 'gone' ? 'cancelled' : outcome,
        attemptId: saved.attemptId,
        attempt: saved.attempt,
        httpStatus: status ?? null,
        ...(retryAfterMs !== null ? { retryAfterMs } : {}),
      },
      stolen,
    };
  }

  return {
    async sendAttempt({ deliveryId, attempt, retryDelayMs, rateReservedAt, waited, local, placed }: SendAttemptInput): Promise<AttemptResult> {
      const manual = attempt === undefined;
      const delivery = await deliveryRepository.findForAttempt(deliveryId, attempt ?? null);
      if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} does not exist`, 'DeliveryNotFound');
      const { event, subscription } = delivery;

      const workflowId = activityInfo().workflowExecution?.workflowId ?? '';
      if (subscription.deletedAt || subscription.condition === 'disabled' || (!manual && delivery.status === 'cancelled')) {
        if (!manual) {
          await deliveryRepository.cancel(deliveryId);
          await deliveryBoundsRepository.forget(deliveryId);
        }
        return { outcome: 'cancelled' };
      }
      const recorded = delivery.attempts?.[0];
      if (recorded) {
        // Run again after it was recorded (the worker died before answering): free its slot, once.
        await release(deliveryId, subscription.id, await clock(), 'none', null);
        const outcome = recorded.status === 'succeeded' ? 'succeeded' : recorded.httpStatus === 410 ? 'cancelled' : 'failed';
        return { outcome, attemptId: recorded.id, attempt, httpStatus: recorded.httpStatus };
      }
      // A manual re-send already got it through: the remaining scheduled attempts are moot.
      if (!manual && delivery.status === 'succeeded') {
        await deliveryBoundsRepository.forget(deliveryId);
        return { outcome: 'succeeded' };
      }
      if (subscription.condition === 'paused') {
        if (manual) return { outcome: 'held' };
        if (await deliveryRepository.holdIfPaused(deliveryId, subscription.id)) {
          await deliveryBoundsRepository.forget(deliveryId);
          return { outcome: 'held' };
        }
      }

      // Scheduled attempts take one of the subscription's slots; a manual re-send (a person's
      // request, or a recovery with its own concurrency) does not wait for one.
      // Read before the slot is taken: the rate's reservations are judged at this time.
      const attemptedAt = await clock();
      if (!manual) {
        const now = attemptedAt;
        // The workflow's timer may fire a little before the reserved time by this clock.
        if (rateReservedAt !== undefined && now.getTime() < rateReservedAt) return { outcome: 'waiting', wait: { reason: 'rate', untilMs: rateReservedAt } };
        const fast = isFast(subscription.id);
        const acquire = () =>
          deliveryBoundsRepository.acquire(
            { deliveryId, subscriptionId: subscription.id, seq: event.seq, workflowId, now, rateReserved: rateReservedAt !== undefined || placed === true, attempt: attempt!, retryDelayMs: retryDelayMs ?? null },
            bounds,
          );
        let slot = await acquire();
        // Handed a slot in the worker: take it as its own (the rate, if any, is judged then, as for a slot handed over by signal).
        if (slot.outcome === 'in_flight_bound' && local && fast && (await awaitHandOver(subscription.id, deliveryId, BRIEF_WAIT_MS, BRIEF_WAITERS_PER_BOUND * subscription.maxInFlight))) {
          slot = await acquire();
        }
        if (slot.outcome !== 'acquired') return { outcome: 'waiting', wait: { reason: slot.outcome, untilMs: slot.until?.getTime() ?? null } };
        if (local && !fast) return { outcome: 'remote' };
      }

      const { result, stolen } = await attemptNow(delivery, { attempt, retryDelayMs, waited, workflowId, attemptedAt, steal: local === true });
      // The slot goes straight on to the oldest waiting deliveries, their attempts sent here.
      let next = stolen;
      const stealUntil = Date.now() + STEAL_FOR_MS;
      for (let n = 1; next; n++) next = await attemptOnBehalf(next, n < STEAL_AT_MOST && Date.now() < stealUntil);
      return result;
    },

    /** For the release after a resume: the next held delivery in event order, or null when done. */
    async nextHeldDelivery({ subscriptionId, skip }: { subscriptionId: string; skip: string[] }) {
      return await deliveryRepository.nextHeld(subscriptionId, skip);
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
