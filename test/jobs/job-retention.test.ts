// Retention of bulk jobs: finished ones go (with their items) JOB_RETENTION_DAYS after they
// finished; unfinished ones stay whatever their age.
import { describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';
import { purge } from '../../src/retention/retention.service.ts';
import { JOB_RETENTION_DAYS } from '../../src/jobs/job.limits.ts';
import { jobRepository } from '../../src/jobs/job.repository.ts';
import { createTestWorkspace } from '../support/fixtures.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('bulk job retention', () => {
  it(`purges jobs finished more than ${JOB_RETENTION_DAYS} days ago with their items, keeps newer and unfinished ones`, async () => {
    const ws = await createTestWorkspace('Job retention');
    const key = await ws.key({ scopes: ['tickets:write'] });
    const now = new Date();
    const job = async (status: string, finishedAt: Date | null, createdAt = new Date(now.getTime() - 30 * DAY)) => {
      const id = newId('job');
      await jobRepository.insertJob({ id, workspaceId: ws.workspace.id, apiKeyId: key.record.id, createdAt, items: [{ op: 'create', input: {} }] });
      await prisma.ticketBulkJob.update({ where: { id }, data: { status, finishedAt } });
      return id;
    };
    const old = await job('completed', new Date(now.getTime() - (JOB_RETENTION_DAYS + 1) * DAY));
    const oldFailed = await job('failed', new Date(now.getTime() - (JOB_RETENTION_DAYS + 2) * DAY));
    const recent = await job('completed', new Date(now.getTime() - (JOB_RETENTION_DAYS - 1) * DAY));
    const queued = await job('queued', null);
    const running = await job('running', null);

    await purge('bulkJobs', { now, policy: { webhookLogDays: 30, readNotificationDays: 30, batchSize: 1 } });

    const left = await prisma.ticketBulkJob.findMany({ where: { workspaceId: ws.workspace.id }, select: { id: true } });
    expect(left.map((j) => j.id).sort()).toEqual([recent, queued, running].sort());
    expect(await prisma.ticketBulkItem.count({ where: { jobId: { in: [old, oldFailed] } } })).toBe(0);
    expect(await prisma.ticketBulkItem.count({ where: { jobId: { in: [recent, queued, running] } } })).toBe(3);
  });
});
