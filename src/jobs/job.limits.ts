// The bounds of bulk ticket jobs, each with its reason (docs/integrators/bulk-jobs.md). No imports: workflow code may read them.

/** Jobs of one workspace not yet finished (one runs, the others wait queued); one more answers 429. */
export const MAX_UNFINISHED_JOBS_PER_WORKSPACE = 10;
/** How long a finished job (and its results) can be read: GET /jobs/{id} answers 404 after. */
export const JOB_RETENTION_DAYS = 7;
/** Items per chunk activity: a chunk is this many short transactions, then the workflow decides again, so a big job yields between chunks. */
export const CHUNK_ITEMS = 10;
/** Chunks one worker process runs at once, whatever the number of workspaces with jobs: bulk work holds at most this many database connections there. */
export const BULK_CHUNKS_IN_FLIGHT = 2;
/**
 * After each chunk with items left, its activity pauses this many times as long as the chunk took
 * (having given its turn back), at most BULK_PAUSE_MAX_MS: a workspace's import then runs its items
 * at most 1 / (1 + ratio) of the time. Three, not one: each imported ticket costs about as much
 * again downstream (its event relayed, delivered and logged), and on the embedded default an
 * import paced at 1 (27 tickets/s) still left another workspace's events waiting 2 s at p95
 * (bench/results/findings-webhooks.md).
 */
export const BULK_PAUSE_RATIO = 3;
export const BULK_PAUSE_MAX_MS = 10_000;

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The workspace's one bulk workflow, a business key: it runs the workspace's jobs one after another, oldest first. */
export const ticketBulkWorkflowId = (workspaceId: number) => `ticket-bulk:${workspaceId}`;
/** Its type and the signal that tells it a job waits (src/jobs/ticket-bulk.workflows.ts defines both). */
export const TICKET_BULK_WORKFLOW = 'ticketBulkWorkflow';
export const BULK_JOB_QUEUED_SIGNAL = 'bulkJobQueued';
