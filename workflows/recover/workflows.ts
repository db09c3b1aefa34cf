// Recovery: re-sends a subscription's deliveries that failed in a time window, as manual attempts
// (same body and webhook-id), in event order, a few at a time. Workflow code: no Node built-ins,
// no database; activities are imported as types only.
//
// A manual attempt that succeeds marks its delivery succeeded, so the delivery's own workflow
// sends none of its remaining scheduled attempts (sendAttempt checks that before each one).
// When an attempt finds the subscription paused (`held`: e.g. the re-sends themselves failed 20
// times in a row) or disabled or deleted (`cancelled`), the recovery stops: it starts no more.
import { ActivityFailure, ApplicationFailure, continueAsNew, proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { DeliveryActivities } from '../delivery/activities.ts';
import type { RecoverActivities } from './activities.ts';

/** Manual attempts in flight at once: enough to get through a backlog, few enough not to flood a receiver that just came back. */
export const RECOVER_CONCURRENCY = 5;
/** Deliveries fetched per page; the page's ids travel through the workflow history. */
const PAGE_SIZE = 100;

const activityOptions: ActivityOptions = {
  // One attempt is the receiver's 10 s plus the database work around it.
  startToCloseTimeout: '1 minute',
  // As for deliveries: HTTP failures are results; thrown errors (database away) are retried
  // without limit; a delivery deleted meanwhile will never appear.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['DeliveryNotFound'] },
};
const { sendAttempt, failedDeliveries } = proxyActivities<DeliveryActivities & RecoverActivities>(activityOptions);

export interface RecoverInput {
  subscriptionId: string;
  /** ISO 8601, inclusive. */
  since: string;
  /** ISO 8601, exclusive; fixed when the recovery is asked for. */
  until: string;
  /** The boards the caller who asked sees: only deliveries of their tickets are re-sent. Absent or null: every board. */
  boardIds?: string[] | null;
}

export interface RecoverOutcome {
  /** Manual attempts made, and how they ended. */
  resent: number;
  succeeded: number;
  failed: number;
  /** Why it stopped before the end: the subscription was paused, or disabled (or deleted). */
  stopped: 'paused' | 'disabled' | null;
  /** Where the next page starts (Event.seq): carried over a continue-as-new. */
  afterSeq: string | null;
}

const isDeliveryNotFound = (err: unknown) => err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'DeliveryNotFound';

/** Runs `work` on every item in order, at most `limit` at once (deterministic: items start in list order). */
async function inPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export async function recoverFailedDeliveriesWorkflow(input: RecoverInput, carried?: RecoverOutcome): Promise<RecoverOutcome> {
  const progress: RecoverOutcome = carried ?? { resent: 0, succeeded: 0, failed: 0, stopped: null, afterSeq: null };
  for (;;) {
    if (workflowInfo().continueAsNewSuggested) return await continueAsNew<typeof recoverFailedDeliveriesWorkflow>(input, progress);
    const page = await failedDeliveries({ ...input, afterSeq: progress.afterSeq, limit: PAGE_SIZE });
    if (page.length === 0) return progress;

    await inPool(page, RECOVER_CONCURRENCY, async ({ id }) => {
      if (progress.stopped) return;
      try {
        const { outcome, attemptId } = await sendAttempt({ deliveryId: id });
        // `cancelled` with an attempt: it was sent and answered 410, which disabled the subscription.
        if (attemptId) {
          progress.resent += 1;
          if (outcome === 'succeeded') progress.succeeded += 1;
          else progress.failed += 1;
        }
        if (outcome === 'held') progress.stopped ??= 'paused';
        else if (outcome === 'cancelled') progress.stopped ??= 'disabled';
      } catch (err) {
        // Deleted since it was listed (its subscription was deleted, or it was purged): nothing to send.
        if (!isDeliveryNotFound(err)) throw err;
      }
    });
    progress.afterSeq = page.at(-1)!.seq;
    if (progress.stopped) return progress;
  }
}
