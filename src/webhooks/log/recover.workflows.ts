// Recovery: re-sends a subscription's deliveries that failed in a time window, as manual attempts
// (same body and webhook-id), in event order. Workflow code: no Node built-ins, no database;
// activities are imported as types only.
//
// It does not send: it asks the subscription's delivery run for manual attempts, a page at a time
// (src/webhooks/delivery/manual.ts), and the run sends them with its other deliveries, within the
// subscription's bound, rate and Retry-After and the workspace's cap. A manual attempt that succeeds
// marks its delivery succeeded, so the run sends none of its remaining scheduled attempts. When the
// run answers that the subscription is paused (`held`: e.g. the re-sends themselves failed 20 times
// in a row) or disabled or deleted (`cancelled`), the recovery stops: it asks for no more. A
// subscription has at most one recovery running (src/webhooks/log/recover.service.ts): it
// gives its place up when it ends.
import { continueAsNew, proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import { manualAttempts } from '../delivery/manual.ts';
import type { RecoverActivities } from './recover.activities.ts';

/**
 * Deliveries asked for at once (one page): the run sends them with its due deliveries, oldest
 * event first, within the subscription's bound; the page's ids travel through the workflow history.
 */
export const RECOVER_PAGE_SIZE = 100;

const activityOptions: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  // Thrown errors (database away) are retried without limit.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
const { failedDeliveries, endRecovery } = proxyActivities<RecoverActivities>(activityOptions);

export interface RecoverInput {
  subscriptionId: string;
  /** The subscription's workspace: its run is woken with it. */
  workspaceId: number;
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

export async function recoverFailedDeliveriesWorkflow(input: RecoverInput, carried?: RecoverOutcome): Promise<RecoverOutcome> {
  const progress: RecoverOutcome = carried ?? { resent: 0, succeeded: 0, failed: 0, stopped: null, afterSeq: null };
  const { subscriptionId, workspaceId } = input;
  const end = async () => {
    await endRecovery({ subscriptionId, workflowId: workflowInfo().workflowId });
    return progress;
  };
  for (;;) {
    // Between pages: no answer is awaited, so the next run has all there is to know.
    if (workflowInfo().continueAsNewSuggested) return await continueAsNew<typeof recoverFailedDeliveriesWorkflow>(input, progress);
    const page = await failedDeliveries({ subscriptionId, since: input.since, until: input.until, boardIds: input.boardIds ?? null, afterSeq: progress.afterSeq, limit: RECOVER_PAGE_SIZE });
    if (page.length === 0) return await end();

    // Those that as many re-sends wait for already (`full`) get their attempt from those.
    const { results } = await manualAttempts({ subscriptionId, workspaceId, deliveryIds: page.map((d) => d.id) });
    for (const { id } of page) {
      const result = results.get(id);
      if (!result) continue;
      // `cancelled` with an attempt: it was sent and answered 410, which disabled the subscription.
      if (result.attemptId) {
        progress.resent += 1;
        if (result.outcome === 'succeeded') progress.succeeded += 1;
        else progress.failed += 1;
      }
      if (result.outcome === 'held') progress.stopped ??= 'paused';
      else if (result.outcome === 'cancelled') progress.stopped ??= 'disabled';
    }
    progress.afterSeq = page.at(-1)!.seq;
    if (progress.stopped) return await end();
  }
}
