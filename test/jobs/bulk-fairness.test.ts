// Bulk jobs share the worker fairly: while one workspace's job is held mid-way, another
// workspace's job runs to the end, and the first workspace's next job waits queued for its turn
// (one job at a time per workspace).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { ticketBody, type Ws } from '../tickets/helpers.ts';
import { finishedJob, startBulkStack, type BulkStack } from './bulk.fixtures.ts';

describe('bulk job fairness', () => {
  let stack: BulkStack;
  let busy: Ws;
  let other: Ws;

  beforeAll(async () => {
    stack = await startBulkStack('bulk-fairness');
    busy = await createTestWorkspace('Busy importer');
    other = await createTestWorkspace('Other importer');
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const bulk = (ws: Ws, key: string, n: number) =>
    api('POST', '/tickets/bulk', { key, body: { items: Array.from({ length: n }, (_, i) => ({ create: ticketBody(ws, { subject: `Fair ${i} ${newId('s')}` }) })) } });

  it('runs another workspace’s job while one is held, and keeps the held workspace’s next job queued until its turn', async () => {
    const busyKey = (await busy.key({ scopes: ['tickets:read', 'tickets:write'] })).value;
    const otherKey = (await other.key({ scopes: ['tickets:read', 'tickets:write'] })).value;
    let held!: string;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const holding = new Promise<void>((resolve) => (reached = resolve));
    await stack.startWorker({
      afterItem: async (jobId) => {
        if (jobId !== held) return;
        reached();
        await released;
      },
    });

    const first = await bulk(busy, busyKey, 3);
    expect(first.status, first.text).toBe(202);
    held = first.body.id;
    await holding;
    const second = await bulk(busy, busyKey, 2);
    const theirs = await bulk(other, otherKey, 4);
    expect([second.status, theirs.status]).toEqual([202, 202]);

    // The other workspace's job is not held back by the busy one's.
    const done = await finishedJob(otherKey, theirs.body.id);
    expect(done.body).toMatchObject({ status: 'completed', succeeded: 4 });
    // The busy workspace's second job waits for its first.
    expect((await prisma.ticketBulkJob.findUniqueOrThrow({ where: { id: held } })).status).toBe('running');
    expect((await api('GET', `/jobs/${second.body.id}`, { key: busyKey })).body).toMatchObject({ status: 'queued', processed: 0 });

    release();
    expect((await finishedJob(busyKey, held)).body).toMatchObject({ status: 'completed', succeeded: 3 });
    const next = await finishedJob(busyKey, second.body.id);
    expect(next.body).toMatchObject({ status: 'completed', succeeded: 2 });
    // Oldest first: the second started after the first finished.
    const [a, b] = await Promise.all([held, second.body.id].map((id) => prisma.ticketBulkJob.findUniqueOrThrow({ where: { id } })));
    expect(b.startedAt!.getTime()).toBeGreaterThanOrEqual(a.finishedAt!.getTime());
  }, 180_000);
});
