// Data access of bulk ticket jobs and their items. A job and its items are written in one
// transaction with the request's Idempotency-Key record; each item's result is written in the
// transaction of the ticket it made or changed (job.service.ts), so a result exists exactly when
// its ticket change does.
import { prisma } from '../db/db.ts';
import type { Prisma } from '../generated/prisma/client.ts';

type Tx = Prisma.TransactionClient;

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';
export type ItemStatus = 'pending' | 'succeeded' | 'failed';

export interface ItemProblem {
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
}

export interface NewJob {
  id: string;
  workspaceId: number;
  apiKeyId: number;
  createdAt: Date;
  items: { op: 'create' | 'update'; input: unknown }[];
  /** The request's Idempotency-Key record, completed with the accept answer in the same transaction. */
  idempotency?: { recordId: number; status: number; body: unknown };
}

const UNFINISHED: JobStatus[] = ['queued', 'running'];

export const jobRepository = {
  /** Jobs of the workspace not yet finished (queued or running). */
  countUnfinished(workspaceId: number) {
    return prisma.ticketBulkJob.count({ where: { workspaceId, status: { in: UNFINISHED } } });
  },

  /** The job, its items and (for a REST request with an Idempotency-Key) the stored answer: one transaction. */
  insertJob(job: NewJob) {
    return prisma.$transaction(async (tx) => {
      await tx.ticketBulkJob.create({
        data: { id: job.id, workspaceId: job.workspaceId, apiKeyId: job.apiKeyId, total: job.items.length, createdAt: job.createdAt },
      });
      await tx.ticketBulkItem.createMany({
        data: job.items.map((item, index) => ({ jobId: job.id, index, op: item.op, input: item.input as Prisma.InputJsonValue })),
      });
      const claim = job.idempotency;
      if (claim) {
        await tx.$executeRaw`
          UPDATE "IdempotencyRecord"
          SET "state" = 'completed', "responseStatus" = ${claim.status}::int, "responseBody" = ${JSON.stringify(claim.body)}::jsonb,
              "completedAt" = ${job.createdAt.toISOString()}::timestamp(3)
          WHERE "id" = ${claim.recordId}::int AND "state" = 'in_progress'`;
      }
    });
  },

  /** The job with its items in order, when it belongs to the workspace. */
  findJob(workspaceId: number, id: string) {
    return prisma.ticketBulkJob.findFirst({
      where: { id, workspaceId },
      include: { items: { orderBy: { index: 'asc' }, select: { index: true, op: true, status: true, ticketId: true, problem: true } } },
    });
  },

  /**
   * The board each item's ticket is on now (the ticket it made or changed, or the one an update
   * named), by item index; null when that ticket is gone or is not the workspace's. Items that name
   * no ticket (a create that failed) are absent.
   */
  async itemTicketBoards(workspaceId: number, jobId: string): Promise<Map<number, { ticketId: number; boardId: string | null }>> {
    const rows = await prisma.$queryRaw<{ index: number; ticketId: number; boardId: string | null }[]>`
      SELECT i."index", i."ticket" AS "ticketId", t."boardId"
        FROM (SELECT "index", COALESCE("ticketId", CASE WHEN "op" = 'update' THEN ("input"->>'id')::int END) AS "ticket"
                FROM "TicketBulkItem" WHERE "jobId" = ${jobId}) i
        LEFT JOIN "Ticket" t ON t."id" = i."ticket" AND t."workspaceId" = ${workspaceId}::int
       WHERE i."ticket" IS NOT NULL`;
    return new Map(rows.map((r) => [r.index, { ticketId: r.ticketId, boardId: r.boardId }]));
  },

  findJobById(id: string) {
    return prisma.ticketBulkJob.findUnique({ where: { id }, select: { id: true, workspaceId: true, apiKeyId: true, status: true } });
  },

  /**
   * The job the workspace's workflow works on next: the one already running (a restarted worker
   * goes on with it), else the oldest queued one, which is marked running.
   */
  takeNextJob(workspaceId: number, now: Date): Promise<string | null> {
    return prisma.$transaction(async (tx) => {
      const running = await tx.ticketBulkJob.findFirst({ where: { workspaceId, status: 'running' }, orderBy: { createdAt: 'asc' }, select: { id: true } });
      if (running) return running.id;
      const queued = await tx.ticketBulkJob.findFirst({ where: { workspaceId, status: 'queued' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: { id: true } });
      if (!queued) return null;
      await tx.ticketBulkJob.updateMany({ where: { id: queued.id, status: 'queued' }, data: { status: 'running', startedAt: now } });
      return queued.id;
    });
  },

  pendingItems(jobId: string, limit: number) {
    return prisma.ticketBulkItem.findMany({ where: { jobId, status: 'pending' }, orderBy: { index: 'asc' }, take: limit, select: { index: true, op: true, input: true } });
  },

  countPending(jobId: string) {
    return prisma.ticketBulkItem.count({ where: { jobId, status: 'pending' } });
  },

  /** Short transactions: one item's ticket change and its result. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return prisma.$transaction(fn, { maxWait: 10_000, timeout: 15_000 });
  },

  /** Locks the item until the transaction ends; false when it already has its result (a retried chunk). */
  async lockPendingItem(tx: Tx, jobId: string, index: number): Promise<boolean> {
    const rows = await tx.$queryRaw<{ status: string }[]>`
      SELECT "status" FROM "TicketBulkItem" WHERE "jobId" = ${jobId} AND "index" = ${index}::int FOR UPDATE`;
    return rows[0]?.status === 'pending';
  },

  recordSuccess(tx: Tx, jobId: string, index: number, ticketId: number, at: Date) {
    return tx.ticketBulkItem.update({ where: { jobId_index: { jobId, index } }, data: { status: 'succeeded', ticketId, doneAt: at } });
  },

  /** A refused item: nothing of it was written, so its result stands alone (only while still pending). */
  recordFailure(jobId: string, index: number, problem: ItemProblem, at: Date) {
    return prisma.ticketBulkItem.updateMany({
      where: { jobId, index, status: 'pending' },
      data: { status: 'failed', problem: problem as unknown as Prisma.InputJsonObject, doneAt: at },
    });
  },

  /** Every item still pending fails with `problem` (the job cannot go on). */
  failPending(jobId: string, problem: ItemProblem, at: Date) {
    return prisma.ticketBulkItem.updateMany({
      where: { jobId, status: 'pending' },
      data: { status: 'failed', problem: problem as unknown as Prisma.InputJsonObject, doneAt: at },
    });
  },

  finishJob(jobId: string, status: 'completed' | 'failed', at: Date) {
    return prisma.ticketBulkJob.updateMany({ where: { id: jobId, status: { in: UNFINISHED } }, data: { status, finishedAt: at } });
  },

  /** Workspaces with a job not finished: their workflows are (re)started at a worker's start. */
  async workspacesWithUnfinishedJobs(): Promise<number[]> {
    const rows = await prisma.ticketBulkJob.findMany({ where: { status: { in: UNFINISHED } }, distinct: ['workspaceId'], select: { workspaceId: true }, take: 10_000 });
    return rows.map((r) => r.workspaceId);
  },

  /** Retention: jobs finished before `before`, with their items (cascade). */
  purgeFinished(before: Date, limit: number): Promise<number> {
    return prisma.$executeRaw`
      DELETE FROM "TicketBulkJob" WHERE "id" IN (
        SELECT "id" FROM "TicketBulkJob" WHERE "finishedAt" <= ${before.toISOString()}::timestamp(3) LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
  },
};
