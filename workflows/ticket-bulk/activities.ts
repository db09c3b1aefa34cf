// The activities of bulk ticket jobs: a straight pipeline over src/jobs/job-runner.ts. A chunk
// waits for one of this worker's BULK_CHUNKS_IN_FLIGHT turns (whatever the number of workspaces
// with jobs), so bulk work never holds more than that many database connections here, and it
// heartbeats after each item, so a chunk whose worker died is given to another in 30 s.
import { Context } from '@temporalio/activity';
import { jobRunner } from '../../src/jobs/job-runner.ts';
import { BULK_CHUNKS_IN_FLIGHT } from '../../src/jobs/job.limits.ts';

export interface TicketBulkActivityDeps {
  /** Chunks at once in this worker (BULK_CHUNKS_IN_FLIGHT unless a test says). */
  chunksInFlight?: number;
  /** Called after each item a chunk ran (its index), e.g. by a test that stops the worker mid-job. */
  afterItem?: (jobId: string, index: number) => void | Promise<void>;
}

/** A counting semaphore: at most `size` holders; the others wait in arrival order. */
function turns(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

export function createTicketBulkActivities(deps: TicketBulkActivityDeps = {}) {
  const inTurn = turns(deps.chunksInFlight ?? BULK_CHUNKS_IN_FLIGHT);
  return {
    async takeNextBulkJob({ workspaceId }: { workspaceId: number }): Promise<string | null> {
      return await jobRunner.takeNext(workspaceId);
    },

    async runBulkChunk({ jobId }: { jobId: string }): Promise<{ remaining: number; busyMs?: number }> {
      return await inTurn(() =>
        jobRunner.runChunk(jobId, async (index) => {
          Context.current().heartbeat(index);
          await deps.afterItem?.(jobId, index);
        }),
      );
    },

    async failBulkJob({ jobId, detail }: { jobId: string; detail: string }): Promise<void> {
      await jobRunner.failJob(jobId, detail);
    },
  };
}

export type TicketBulkActivities = ReturnType<typeof createTicketBulkActivities>;
