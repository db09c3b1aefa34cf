// The running side of bulk ticket jobs (the activities of src/jobs/ticket-bulk.activities.ts call it): which
// job is next, and a chunk of its items, each through the tickets service in one short
// transaction together with its result. Accepting and reading jobs is job.service.ts.
import { AppError } from '../errors/errors.ts';
import type { ApiKeyPrincipal } from '../access/principal.ts';
import { apiKeyService } from '../api-keys/api-key.service.ts';
import { ticketService } from '../tickets/ticket.service.ts';
import type { TicketWrites } from '../tickets/ticket.repository.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { jobRepository, type ItemProblem } from './job.repository.ts';
import { CHUNK_ITEMS, DAY_MS, JOB_RETENTION_DAYS } from './job.limits.ts';

const problemOf = (err: AppError): ItemProblem => ({ code: err.code, detail: err.message, ...(err.errors?.length ? { errors: err.errors.slice(0, 20) } : {}) });

export const jobRunner = {
  /** The workflow's next job of the workspace (marked running), or null. */
  takeNext(workspaceId: number): Promise<string | null> {
    return jobRepository.takeNextJob(workspaceId, new Date());
  },

  /**
   * Runs the next CHUNK_ITEMS pending items of the job, in order, with the authority its key has
   * now (a revoked or expired key fails the rest of the job). Each item's ticket change and its
   * result commit together; an item that already has its result is skipped. Returns how many
   * items remain and how long the chunk took (`busyMs`: the chunk's activity pauses in proportion
   * to it, src/jobs/ticket-bulk.activities.ts); at none remaining, the job is completed.
   */
  async runChunk(jobId: string, onItem: (index: number) => void | Promise<void> = () => {}): Promise<{ remaining: number; busyMs: number }> {
    const started = Date.now();
    const job = await jobRepository.findJobById(jobId);
    if (!job || (job.status !== 'running' && job.status !== 'queued')) return { remaining: 0, busyMs: 0 };
    const principal = await apiKeyService.principalById(job.apiKeyId);
    if (!principal || principal.workspace.id !== job.workspaceId) {
      const now = new Date();
      await jobRepository.failPending(jobId, { code: 'invalid_token', detail: 'The API key that made the job was revoked or has expired' }, now);
      await jobRepository.finishJob(jobId, 'failed', now);
      return { remaining: 0, busyMs: 0 };
    }
    for (const item of await jobRepository.pendingItems(jobId, CHUNK_ITEMS)) {
      await runItem(principal, jobId, item);
      await onItem(item.index);
    }
    const remaining = await jobRepository.countPending(jobId);
    if (remaining === 0) await jobRepository.finishJob(jobId, 'completed', new Date());
    return { remaining, busyMs: Date.now() - started };
  },

  /** The job could not go on (its chunk kept failing): its pending items fail, and so does the job. */
  async failJob(jobId: string, detail: string): Promise<void> {
    const now = new Date();
    await jobRepository.failPending(jobId, { code: 'internal_error', detail }, now);
    await jobRepository.finishJob(jobId, 'failed', now);
  },

  /** Retention: finished jobs older than JOB_RETENTION_DAYS. */
  purgeExpired(now: Date, limit: number): Promise<number> {
    return jobRepository.purgeFinished(new Date(now.getTime() - JOB_RETENTION_DAYS * DAY_MS), limit);
  },
};

/** Thrown inside an item's transaction when the item already has its result (a retried chunk): nothing is written. */
class ItemDone extends Error {}

async function runItem(p: ApiKeyPrincipal, jobId: string, item: { index: number; op: string; input: unknown }): Promise<void> {
  // The item's writes: its lock and check, the ticket's writes, its result, in one transaction.
  const writes = (ticketIdOf: (result: unknown) => number) =>
    (<T>(fn: (tx: Prisma.TransactionClient) => Promise<T>) =>
      jobRepository.transaction(async (tx) => {
        if (!(await jobRepository.lockPendingItem(tx, jobId, item.index))) throw new ItemDone();
        const result = await fn(tx);
        await jobRepository.recordSuccess(tx, jobId, item.index, ticketIdOf(result), new Date());
        return result;
      })) as TicketWrites;
  try {
    if (item.op === 'create') {
      await ticketService.create(p, item.input, undefined, writes((id) => id as number));
    } else {
      const { id, version, ...change } = item.input as { id: number; version?: number } & Record<string, unknown>;
      await ticketService.update(p, id, change, version === undefined ? null : [version], writes(() => id));
    }
  } catch (err) {
    if (err instanceof ItemDone) return;
    // A refusal of the tickets service: nothing of the item was written (its transaction rolled
    // back, or never opened), so its result is written alone, if it has none yet. Anything else
    // fails the chunk, which is retried.
    if (!(err instanceof AppError)) throw err;
    await jobRepository.recordFailure(jobId, item.index, problemOf(err), new Date());
  }
}
