// The activities of bulk ticket jobs: a straight pipeline over src/jobs/job-runner.ts. A chunk
// waits for one of this worker's BULK_CHUNKS_IN_FLIGHT turns (whatever the number of workspaces
// with jobs), so bulk work never holds more than that many database connections here, and it
// heartbeats after each item, and every WAIT_HEARTBEAT_MS while it waits for its turn or pauses,
// so a chunk whose worker died is given to another within the workflow's 10 s heartbeat time-out
// (an item that hangs stops the heartbeats; one retried beside a live attempt is safe: each item
// locks its row, job-runner.ts). A chunk with items left then pauses (job.limits.ts:
// BULK_PAUSE_RATIO), after giving its turn back.
//
// The pause is a sleep here rather than a durable timer in the workflow: the dev server fires a
// timer about a second late (measured: a 0.2 s timer after each 0.22 s chunk fired after 0.95 s,
// which held an import to 8 tickets/s), and nothing needs it to survive a restart: a worker that
// dies mid-pause has its chunk retried, which finds the chunk's items done and runs the next ones.
import { Context } from '@temporalio/activity';
import { jobRunner } from './job-runner.ts';
import { BULK_CHUNKS_IN_FLIGHT, BULK_PAUSE_MAX_MS, BULK_PAUSE_RATIO } from './job.limits.ts';
import { BULK_JOBS_LANE, withDatabaseLane } from '../db/fair-turns.ts';

export interface TicketBulkActivityDeps {
  /** Chunks at once in this worker (BULK_CHUNKS_IN_FLIGHT unless a test says). */
  chunksInFlight?: number;
  /** Called after each item a chunk ran (its index), e.g. by a test that stops the worker mid-job. */
  afterItem?: (jobId: string, index: number) => void | Promise<void>;
  /** The pause after a chunk that took `busyMs` (BULK_PAUSE_RATIO times it, at most BULK_PAUSE_MAX_MS, unless a test says). */
  pauseMs?: (busyMs: number) => number;
}

export const pauseAfter = (busyMs: number) => Math.min(BULK_PAUSE_MAX_MS, Math.round(busyMs * BULK_PAUSE_RATIO));

/** How often a chunk heartbeats while it waits (for a turn, or in its pause): a few times in the 10 s time-out. */
const WAIT_HEARTBEAT_MS = 2_000;

/** A counting semaphore: at most `size` holders; the others wait in arrival order. `take` resolves with the release. */
function turns(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return async (): Promise<() => void> => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    return release;
  };
}

/** Awaits one of the chunk's own waits, heartbeating meanwhile (an item's work heartbeats only as each item ends). */
async function heartbeatingWhile<T>(context: Context, wait: Promise<T>): Promise<T> {
  const timer = setInterval(() => context.heartbeat(), WAIT_HEARTBEAT_MS);
  try {
    return await wait;
  } finally {
    clearInterval(timer);
  }
}

export function createTicketBulkActivities(deps: TicketBulkActivityDeps = {}) {
  const takeTurn = turns(deps.chunksInFlight ?? BULK_CHUNKS_IN_FLIGHT);
  return {
    async takeNextBulkJob({ workspaceId }: { workspaceId: number }): Promise<string | null> {
      return await jobRunner.takeNext(workspaceId);
    },

    async runBulkChunk({ jobId }: { jobId: string }): Promise<{ remaining: number }> {
      const context = Context.current();
      const release = await heartbeatingWhile(context, takeTurn());
      let outcome: { remaining: number; busyMs: number };
      try {
        // On the embedded database, the imports' statements take their turns in a lane of their own (fair-turns.ts).
        outcome = await withDatabaseLane(BULK_JOBS_LANE, () =>
          jobRunner.runChunk(jobId, async (index) => {
            context.heartbeat(index);
            await deps.afterItem?.(jobId, index);
          }),
        );
      } finally {
        release();
      }
      if (outcome.remaining > 0) await heartbeatingWhile(context, context.sleep((deps.pauseMs ?? pauseAfter)(outcome.busyMs)));
      return { remaining: outcome.remaining };
    },

    async failBulkJob({ jobId, detail }: { jobId: string; detail: string }): Promise<void> {
      await jobRunner.failJob(jobId, detail);
    },
  };
}

export type TicketBulkActivities = ReturnType<typeof createTicketBulkActivities>;
