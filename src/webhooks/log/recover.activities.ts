// The recovery's own activities: which deliveries to re-send, a page at a time, and giving up the
// subscription's place for a running recovery at the end. The re-sends themselves are manual
// attempts that the subscription's delivery run sends (src/webhooks/delivery/manual.ts).
import { recoverRepository, type RecoverCandidate } from './recover.repository.ts';

interface FailedDeliveriesInput {
  subscriptionId: string;
  /** ISO 8601; inclusive. */
  since: string;
  /** ISO 8601; exclusive. */
  until: string;
  /** The event order (Event.seq, as a string: it is a bigint) after which to go on; null from the start. */
  afterSeq: string | null;
  limit: number;
  /** Only deliveries of events the asker sees (webhook.repository.ts eventVisible); null: every board. */
  boardIds?: string[] | null;
}

export function createRecoverActivities() {
  return {
    /** The next deliveries to re-send, in event order: failed in the window and not delivered since. */
    async failedDeliveries(input: FailedDeliveriesInput): Promise<RecoverCandidate[]> {
      return await recoverRepository.failedInWindow(input.subscriptionId, new Date(input.since), new Date(input.until), input.afterSeq, input.limit, input.boardIds ?? null);
    },

    /** The recovery has ended: another may start for the subscription. */
    async endRecovery({ subscriptionId, workflowId }: { subscriptionId: string; workflowId: string }): Promise<void> {
      await recoverRepository.givePlaceUp(subscriptionId, workflowId);
    },
  };
}

export type RecoverActivities = ReturnType<typeof createRecoverActivities>;
