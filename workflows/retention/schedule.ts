// The Temporal Schedule that runs the retention workflow; created once, whoever starts first.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { purgeDeliveryAttemptsWorkflow } from './workflows.ts';

/** A readable business key, as workflow ids are: visible under Schedules in Temporal Web. */
export const RETENTION_SCHEDULE_ID = 'retention:delivery-attempts';

export async function ensureRetentionSchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: RETENTION_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 hour' }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: { type: 'startWorkflow', workflowType: purgeDeliveryAttemptsWorkflow, workflowId: 'retention:delivery-attempts:run', taskQueue, args: [] },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
