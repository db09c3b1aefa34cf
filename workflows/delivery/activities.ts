// The delivery activities, built by a factory that receives their dependencies (the worker hands
// in the configured ones, tests their own CA and clock). One sendAttempt = one attempt: check the
// subscription, sign, POST, record the attempt and the subscription's health.
//
// HTTP failures are results, not exceptions: the workflow's schedule is their retry. Anything
// thrown (the database is down, the worker died mid-attempt) is retried by Temporal, and a
// retry of an attempt that was already recorded returns the recorded outcome instead of sending
// again.
import { activityInfo, ApplicationFailure } from '@temporalio/activity';
import { deliveryRepository } from '../../src/webhooks/delivery.repository.ts';
import { configuredMailer, emailPausedNotice, type MailerSettings } from '../../src/webhooks/paused-notice.ts';
import { activeSecrets, signatureHeaders } from '../../src/webhooks/signing.ts';
import { createWebhookSender, deliveryBody, type SenderOptions } from '../../src/webhooks/webhook-sender.ts';
import { logger } from '../../src/logger.ts';
import { countAttempt } from '../../src/metrics/delivery-metrics.ts';
import { annotateSpan } from '../../src/tracing/tracing.ts';
import { MAX_ATTEMPTS, nextAttemptTime } from './schedule.ts';

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
}

/** What an attempt came to: `held` and `cancelled` mean nothing was sent. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'held' | 'cancelled';

export interface SendAttemptInput {
  deliveryId: string;
  /** The scheduled attempt's number (1..7); absent for a manual re-send. */
  attempt?: number;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  /** Set when an attempt was recorded. */
  attemptId?: string;
  attempt?: number;
  httpStatus?: number | null;
}

export function createDeliveryActivities(deps: DeliveryActivityDeps = {}) {
  const sender = createWebhookSender({ allowPrivateTargets: deps.allowPrivateTargets, ca: deps.tls?.ca, timeoutMs: deps.timeoutMs });
  const clock = deps.clock ?? (() => new Date());
  const mailer = deps.mailer === undefined ? configuredMailer() : (deps.mailer ?? undefined);

  return {
    async sendAttempt({ deliveryId, attempt }: SendAttemptInput): Promise<AttemptResult> {
      const manual = attempt === undefined;
      const delivery = await deliveryRepository.findForAttempt(deliveryId, attempt ?? null);
      if (!delivery) throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} does not exist`, 'DeliveryNotFound');
      const { event, subscription } = delivery;

      if (subscription.deletedAt || subscription.condition === 'disabled' || (!manual && delivery.status === 'cancelled')) {
        if (!manual) await deliveryRepository.cancel(deliveryId);
        return { outcome: 'cancelled' };
      }
      const recorded = delivery.attempts?.[0];
      if (recorded) {
        const outcome = recorded.status === 'succeeded' ? 'succeeded' : recorded.httpStatus === 410 ? 'cancelled' : 'failed';
        return { outcome, attemptId: recorded.id, attempt, httpStatus: recorded.httpStatus };
      }
      // A manual re-send already got it through: the remaining scheduled attempts are moot.
      if (!manual && delivery.status === 'succeeded') return { outcome: 'succeeded' };
      if (subscription.condition === 'paused') {
        if (manual || (await deliveryRepository.holdIfPaused(deliveryId, subscription.id))) return { outcome: 'held' };
      }

      const attemptedAt = await clock();
      const body = deliveryBody(event.payload);
      const headers = signatureHeaders({ id: event.id, body, timestamp: new Date(), secrets: activeSecrets(subscription, attemptedAt) });
      const result = await sender.send(subscription.url, headers, body);

      const status = result.httpStatus;
      const outcome = status !== undefined && status >= 200 && status < 300 ? 'succeeded' : status === 410 ? 'gone' : 'failed';
      const lastScheduled = attempt !== undefined && attempt >= MAX_ATTEMPTS;
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
        nextAttemptAt: outcome === 'failed' && attempt !== undefined ? nextAttemptTime(attempt, attemptedAt) : null,
        workflowId: activityInfo().workflowExecution?.workflowId ?? '',
      });
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
        outcome: outcome === 'gone' ? 'cancelled' : outcome,
        attemptId: saved.attemptId,
        attempt: saved.attempt,
        httpStatus: status ?? null,
      };
    },

    /** For the release after a resume: the next held delivery in event order, or null when done. */
    async nextHeldDelivery({ subscriptionId, skip }: { subscriptionId: string; skip: string[] }) {
      return await deliveryRepository.nextHeld(subscriptionId, skip);
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
