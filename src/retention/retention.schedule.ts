// The Temporal Schedule that runs the retention workflow; created once, whoever starts first.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { retentionWorkflow } from './retention.workflows.ts';

/** A readable business key, as workflow ids are: visible under Schedules in Temporal Web. */
export const RETENTION_SCHEDULE_ID = 'retention';

export async function ensureRetentionSchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: RETENTION_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 hour' }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: { type: 'startWorkflow', workflowType: retentionWorkflow, workflowId: 'retention:run', taskQueue, args: [] },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
