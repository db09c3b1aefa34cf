// Telling a workspace's bulk workflow (src/jobs/ticket-bulk.workflows.ts) that a job waits, from the API (a
// Temporal Client, no worker). By name, so that this domain does not import the workflow code
// (which imports the domain's runner for its activities).
import type { Client } from '@temporalio/client';
import { BULK_JOB_QUEUED_SIGNAL, TICKET_BULK_WORKFLOW, ticketBulkWorkflowId } from './job.limits.ts';

/**
 * Signal-with-start under the workspace's business key: starts the workflow when it does not
 * run, so the accept, a poll of a job left queued and a worker's start may all call it.
 */
export async function queueBulkWork(client: Client, taskQueue: string, workspaceId: number): Promise<void> {
  await client.workflow.signalWithStart(TICKET_BULK_WORKFLOW, {
    workflowId: ticketBulkWorkflowId(workspaceId),
    taskQueue,
    args: [{ workspaceId }],
    signal: BULK_JOB_QUEUED_SIGNAL,
  });
}
