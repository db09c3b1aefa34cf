// Bulk ticket jobs (docs/integrators/bulk-jobs.md): one workflow per workspace runs its jobs one
// at a time, oldest first, each as a series of short chunk activities. Workflow code: no Node
// built-ins, no database; activities are imported as types only.
//
// What makes a restart safe lives in the database, not here: every item's result is written in
// the transaction of its ticket, and a chunk skips items that have one, so a chunk retried after a
// worker died mid-way makes no ticket twice and loses none. The workflow only decides what runs
// next, and holds the workspace's turn: while one of its jobs runs, its other jobs wait queued.
import { ApplicationFailure, condition, continueAsNew, defineSignal, proxyActivities, setHandler, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { TicketBulkActivities } from './ticket-bulk.activities.ts';
import { BULK_JOB_QUEUED_SIGNAL } from './job.limits.ts';

/** A new job of the workspace was stored: look for it (sent with the start, so a finished run is started again). */
const bulkJobQueued = defineSignal(BULK_JOB_QUEUED_SIGNAL);

/** How long an idle run waits for another job before it ends (a signal after that starts a new run). */
const IDLE_LINGER = '10 seconds';

const chunkOptions: ActivityOptions = {
  // A chunk is a few short transactions; it heartbeats after each item and every 2 s while it
  // waits (activities.ts), so a worker that died is noticed in 10 s (30 s until 29 November 2026).
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  // The database away: retried with back-off for about a quarter of an hour, then the job fails
  // (its remaining items with `internal_error`) and the workspace's next job runs.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
};
const { runBulkChunk } = proxyActivities<TicketBulkActivities>(chunkOptions);
const { takeNextBulkJob, failBulkJob } = proxyActivities<TicketBulkActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export interface TicketBulkInput {
  workspaceId: number;
}

/** Started by name (TICKET_BULK_WORKFLOW, src/jobs/job-workflow.ts) under `ticket-bulk:<workspaceId>`. */
export async function ticketBulkWorkflow(input: TicketBulkInput): Promise<void> {
  let woken = false;
  setHandler(bulkJobQueued, () => {
    woken = true;
  });
  for (;;) {
    if (workflowInfo().continueAsNewSuggested) return await continueAsNew<typeof ticketBulkWorkflow>(input);
    woken = false;
    const jobId = await takeNextBulkJob({ workspaceId: input.workspaceId });
    if (!jobId) {
      if (woken || (await condition(() => woken, IDLE_LINGER))) continue;
      return;
    }
    try {
      for (;;) {
        // Each chunk ends with its pause (activities.ts), so chunks follow one another directly.
        const { remaining } = await runBulkChunk({ jobId });
        if (remaining === 0) break;
      }
    } catch (err) {
      // The chunk kept failing: the job ends failed rather than holding the workspace's turn for ever.
      await failBulkJob({ jobId, detail: err instanceof ApplicationFailure ? err.message : 'The job could not be completed' });
    }
  }
}
