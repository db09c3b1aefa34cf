// Starting a workspace's bulk workflow from the API (a Temporal Client, no worker).
import type { Client } from '@temporalio/client';
import { ticketBulkWorkflowId } from './ids.ts';
import { bulkJobQueued, ticketBulkWorkflow } from './workflows.ts';

/**
 * Tells the workspace's bulk workflow that a job waits, starting it when it does not run
 * (signal-with-start under its business key): harmless to repeat, so the accept, a poll of a job
 * left queued and a worker's start all call it.
 */
export async function queueBulkWork(client: Client, taskQueue: string, workspaceId: number): Promise<void> {
  await client.workflow.signalWithStart(ticketBulkWorkflow, {
    workflowId: ticketBulkWorkflowId(workspaceId),
    taskQueue,
    args: [{ workspaceId }],
    signal: bulkJobQueued,
  });
}
