// Bulk ticket jobs (docs/integrators/bulk-jobs.md): accept a request of up to 100 ticket
// creations or updates, store it as a job, and run it in the background through the tickets
// service, one item at a time, each in its own short transaction together with its result.
import type { Client } from '@temporalio/client';
import { AppError } from '../errors/errors.ts';
import { canSeeBoard, type Principal } from '../access/principal.ts';
import { newId } from '../ids.ts';
import { logger } from '../logger.ts';
import { temporal } from '../temporal/client.ts';
import type { IdempotencyClaim } from '../idempotency/idempotency.service.ts';
import { parseInput } from '../tickets/ticket.inputs.ts';
import { queueBulkWork } from './job-workflow.ts';
import { bulkTicketsInput, type BulkItem } from './job.inputs.ts';
import { jobRepository, type ItemProblem, type ItemStatus, type JobStatus } from './job.repository.ts';
import { DAY_MS, JOB_RETENTION_DAYS, MAX_UNFINISHED_JOBS_PER_WORKSPACE } from './job.limits.ts';

/** A job queued this long is pushed again when polled (its workflow's start may have failed). */
const REKICK_AFTER_MS = 60_000;

export interface JobItemRepresentation {
  index: number;
  operation: 'create' | 'update';
  status: ItemStatus;
  ticketId: number | null;
  error: ItemProblem | null;
}

export interface JobRepresentation {
  id: string;
  status: JobStatus;
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  expiresAt: string | null;
  items: JobItemRepresentation[];
}

type JobRow = NonNullable<Awaited<ReturnType<typeof jobRepository.findJob>>>;

function toJobRepresentation(job: Omit<JobRow, 'items' | 'workspaceId' | 'apiKeyId'>, items: JobItemRepresentation[]): JobRepresentation {
  const succeeded = items.filter((i) => i.status === 'succeeded').length;
  const failed = items.filter((i) => i.status === 'failed').length;
  return {
    id: job.id,
    status: job.status as JobStatus,
    total: job.total,
    processed: succeeded + failed,
    succeeded,
    failed,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    expiresAt: job.finishedAt ? new Date(job.finishedAt.getTime() + JOB_RETENTION_DAYS * DAY_MS).toISOString() : null,
    items,
  };
}

const notFound = (id: string) => new AppError('not_found', `No job ${id}`);

/** Tells the workspace's workflow; a failure leaves the job queued for a poll or a worker's start to push again. */
async function kick(workspaceId: number, jobId: string) {
  try {
    const { client, taskQueue } = temporal();
    await queueBulkWork(client, taskQueue, workspaceId);
  } catch (err) {
    logger.warn({ err, jobId, workspaceId }, 'bulk job stored but its workflow could not be started now; it stays queued');
  }
}

interface AcceptContext {
  idempotencyClaim?: IdempotencyClaim;
  /** Counts `extra` more requests against the caller's allowance, or throws 429 rate_limited. */
  chargeRequests?: (extra: number) => Promise<void>;
}

export const jobService = {
  /**
   * Checks the whole request (shape, role, the workspace's unfinished jobs, the allowance: each
   * item counts as one request), then stores the job, its items and the Idempotency-Key's answer
   * in one transaction, and starts the workspace's workflow. Nothing is stored when a check fails.
   */
  async acceptBulk(p: Principal, raw: unknown, ctx: AcceptContext): Promise<JobRepresentation> {
    if (p.kind !== 'apiKey') throw new AppError('forbidden', 'Bulk jobs are made with an API key');
    if (!p.role.isAdmin && !p.role.permissions.has('tickets.write')) {
      throw new AppError('forbidden', `The role ${p.role.name} does not allow changing tickets`);
    }
    const { items } = parseInput(bulkTicketsInput, raw, 'The bulk request did not pass validation');
    if ((await jobRepository.countUnfinished(p.workspace.id)) >= MAX_UNFINISHED_JOBS_PER_WORKSPACE) {
      throw new AppError('rate_limited', `A workspace may have ${MAX_UNFINISHED_JOBS_PER_WORKSPACE} bulk jobs queued or running; retry when one has finished`, {
        headers: { 'Retry-After': '60' },
      });
    }
    // The request itself was counted once when it came in.
    if (items.length > 1) await ctx.chargeRequests?.(items.length - 1);

    const id = newId('job');
    const createdAt = new Date();
    const answer = toJobRepresentation(
      { id, status: 'queued', total: items.length, createdAt, startedAt: null, finishedAt: null },
      items.map((item, index) => ({ index, operation: item.create ? 'create' : 'update', status: 'pending', ticketId: null, error: null })),
    );
    const claim = ctx.idempotencyClaim;
    await jobRepository.insertJob({
      id,
      workspaceId: p.workspace.id,
      apiKeyId: p.apiKey.id,
      createdAt,
      items: items.map((item: BulkItem) => (item.create ? { op: 'create', input: item.create } : { op: 'update', input: item.update })),
      idempotency: claim && { recordId: claim.recordId, status: claim.successStatus, body: answer },
    });
    if (claim) claim.completed = true;
    await kick(p.workspace.id, id);
    return answer;
  },

  /**
   * The job, to the key that submitted it. Its items name tickets on any board that key's role
   * reaches, which another key or person of the workspace may not see, so every other caller (another
   * key, a person, another workspace) gets 404, as for a missing job: the job is the submitter's, as
   * its `Idempotency-Key` is. Each item's ticket is judged against the key's role as it is now: one
   * on a board the role no longer sees (or gone) is answered as its own call would be now, without
   * the ticket's id and, when it failed, as `not_found`.
   */
  async get(p: Principal, id: string): Promise<JobRepresentation> {
    if (!/^job_[0-9A-Z]{26}$/.test(id)) throw notFound(id);
    const job = await jobRepository.findJob(p.workspace.id, id);
    if (!job || p.kind !== 'apiKey' || job.apiKeyId !== p.apiKey.id) throw notFound(id);
    if (job.status === 'queued' && Date.now() - job.createdAt.getTime() > REKICK_AFTER_MS) await kick(job.workspaceId, job.id);
    const tickets = await jobRepository.itemTicketBoards(p.workspace.id, job.id);
    return toJobRepresentation(
      job,
      job.items.map((i) => {
        const item: JobItemRepresentation = {
          index: i.index,
          operation: i.op as 'create' | 'update',
          status: i.status as ItemStatus,
          ticketId: i.ticketId,
          error: (i.problem as ItemProblem | null) ?? null,
        };
        const ticket = tickets.get(i.index);
        if (!ticket || (ticket.boardId !== null && canSeeBoard(p.role, ticket.boardId))) return item;
        return { ...item, ticketId: null, error: item.status === 'failed' ? { code: 'not_found', detail: `No ticket ${ticket.ticketId}` } : null };
      }),
    );
  },


  /**
   * At a worker's (re)connection: every workspace with an unfinished job gets its workflow pushed
   * again, so a job whose start failed after it was stored, or whose run was lost, goes on.
   */
  async resumeUnfinished(client: Client, taskQueue: string): Promise<void> {
    try {
      for (const workspaceId of await jobRepository.workspacesWithUnfinishedJobs()) await queueBulkWork(client, taskQueue, workspaceId);
    } catch (err) {
      logger.warn({ err }, 'unfinished bulk jobs could not be resumed now; a poll of each pushes it again');
    }
  },
};
