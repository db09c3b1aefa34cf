// Retention of the delivery log: attempts are kept 30 days (decisions.md), then purged by this
// workflow, which a Temporal Schedule runs every hour (schedule.ts).
import { proxyActivities } from '@temporalio/workflow';
import type { RetentionActivities } from './activities.ts';

const { purgeDeliveryAttempts } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '10 seconds', maximumInterval: '5 minutes' },
});

export const ATTEMPT_RETENTION_DAYS = 30;

export async function purgeDeliveryAttemptsWorkflow(): Promise<{ purged: number }> {
  return await purgeDeliveryAttempts({ olderThanDays: ATTEMPT_RETENTION_DAYS });
}
