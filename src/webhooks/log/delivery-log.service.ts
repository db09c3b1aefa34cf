// The delivery log of a subscription (docs/integrators/webhooks.md, "Delivery log") and re-sending
// one of its deliveries: a manual attempt that the subscription's delivery run sends.
import type { Principal } from '../../access/principal.ts';
import { AppError } from '../../errors/errors.ts';
import type { DeliveryStatus } from '../../generated/prisma/client.ts';
import { logger } from '../../logger.ts';
import { pageByKey, type ConnectionArgs } from '../../paging/page-by-key.ts';
import { timeAndId } from '../../paging/page-keys.ts';
import { temporal } from '../../temporal/client.ts';
import { visibleBoards, webhookService } from '../subscriptions/webhook.service.ts';
import { recordSubscriptionAction } from '../subscriptions/webhook-audit.ts';
import { resendDelivery } from '../delivery/client.ts';
import { MANUAL_REQUESTS_PER_DELIVERY } from '../delivery/constants.ts';
import { resendWorkflowId } from '../delivery/ids.ts';
import { DELIVERY_TIMEOUT_MS } from '../message/constants.ts';
import { retryScheduleView } from '../message/retry-schedule.ts';
import { deliveryLogRepository, type DeliveryLogRow } from './delivery-log.repository.ts';
import type { WaitReason } from '../delivery/wait.ts';

export const DELIVERY_STATUSES = ['succeeded', 'failed', 'pending', 'held', 'cancelled'] as const satisfies readonly DeliveryStatus[];

/** How long a re-send request waits for its attempt's result before answering that it is still running. */
const RESEND_WAIT_MS = 15_000;

export interface DeliveryLogQuery {
  status?: DeliveryStatus | null;
  eventType?: string | null;
  eventId?: string | null;
  since?: Date | null;
  until?: Date | null;
}

/** The delivery log's order: newest first by `sortAt`, then by id (an attempt's or a waiting delivery's). */
const logKeys = timeAndId(/^(?:att|dlv)_[0-9A-Z]{26}$/);

export const deliveryLogService = {
  /** The delivery log as a relay connection, forward only (the arguments are checked before the subscription is looked up). */
  deliveries(p: Principal, id: string, q: DeliveryLogQuery, args: ConnectionArgs) {
    if (args.last != null || args.before != null) throw new AppError('validation_failed', 'The delivery log pages forward only: use first and after');
    return pageByKey(args, {
      key: logKeys,
      keyOf: (row: DeliveryLogRow) => ({ at: row.sortAt, id: row.id }),
      newestFirst: true,
      load: async (page) => {
        const s = await webhookService.get(p, id);
        const { maxAttempts } = retryScheduleView(s.retrySchedule);
        return (await deliveryLogRepository.deliveryLog(s.id, { ...q, after: page.where.id?.lt ?? null, boardIds: visibleBoards(p) }, page.take)).map((r) => ({ ...r, maxAttempts }));
      },
    });
  },

  /**
   * One manual attempt with the same payload and webhook-id, logged with trigger `manual`. Answers
   * the attempt when it has a result within `waitMs`; else the delivery as `pending` with the
   * re-send's workflow id (the attempt goes on and shows in the log; REST answers 202).
   */
  async resend(p: Principal, id: string, deliveryId: string, requestId: string, waitMs = RESEND_WAIT_MS): Promise<DeliveryLogRow> {
    const s = await webhookService.get(p, id);
    const delivery = await deliveryLogRepository.findDelivery(s.id, deliveryId, visibleBoards(p));
    if (!delivery) throw new AppError('not_found', `No delivery ${deliveryId} of webhook subscription ${id}`);
    if (s.condition !== 'receiving') {
      throw new AppError('invalid_state_transition', `The subscription is ${s.condition}: ${s.condition === 'paused' ? 'resume' : 'enable'} it before re-sending`);
    }
    await recordSubscriptionAction(p, 'webhook_subscription.delivery_resend_requested', s.id, { deliveryId: delivery.id });
    const { client, taskQueue } = temporal();
    const ref = { deliveryId: delivery.id, eventId: delivery.eventId, subscriptionId: s.id, eventType: delivery.event.type, workspaceId: delivery.event.workspaceId };
    // Past the wait the answer is given: the wait for the attempt's result stops with it.
    const stopWaiting = new AbortController();
    const resent = resendDelivery(client, taskQueue, ref, requestId, stopWaiting.signal).catch((err: unknown) => {
      logger.warn({ err, deliveryId: delivery.id }, 're-send could not run');
      throw new AppError('service_unavailable', 'The re-send could not run now; try again shortly');
    });
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([resent, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)))]).finally(() => clearTimeout(timer));
    if (waited === null) {
      stopWaiting.abort();
      resent.catch(() => undefined);
      const now = new Date();
      return {
        id: delivery.id, deliveryId: delivery.id, eventId: delivery.eventId, eventType: delivery.event.type, attempt: 0, trigger: 'manual', status: 'pending',
        httpStatus: null, durationMs: null, responseExcerpt: null, error: null, payload: JSON.stringify(delivery.event.payload),
        attemptedAt: null, nextAttemptAt: now, workflowId: resendWorkflowId(delivery.id, requestId), workflowRunId: null, sortAt: now, waitedReason: null, waitedMs: null,
        payloadMode: delivery.payloadMode,
      };
    }
    const { result } = waited;
    if (result?.outcome === 'busy') {
      throw new AppError('rate_limited', `${MANUAL_REQUESTS_PER_DELIVERY} re-sends of this delivery wait for its next attempt already; ask again when it is done`, {
        headers: { 'Retry-After': String(DELIVERY_TIMEOUT_MS / 1000) },
      });
    }
    const attempt = result && 'attemptId' in result && result.attemptId ? await deliveryLogRepository.attempt(result.attemptId) : null;
    if (!attempt) throw new AppError('invalid_state_transition', `The delivery was not re-sent: the subscription is ${result?.outcome === 'held' ? 'paused' : 'not receiving'}`);
    // The column holds only what a batch recorded: a WaitReason (recordAttempt's and recordSuccesses' type).
    return { ...attempt, trigger: attempt.trigger, status: attempt.status, waitedReason: attempt.waitedReason as WaitReason | null, sortAt: attempt.attemptedAt };
  },
};
