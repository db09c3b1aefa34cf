// A bulk job survives its worker stopping mid-chunk: a new worker goes on where the old one
// stopped, every ticket is made once (one ticket, one history entry, one ticket.created event per
// item), none is lost. And a chunk run twice at once (a retry beside a slow first attempt) makes
// nothing twice either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';
import { jobRepository } from '../../src/jobs/job.repository.ts';
import { jobRunner } from '../../src/jobs/job-runner.ts';
import { BULK_PAUSE_MAX_MS, BULK_PAUSE_RATIO, CHUNK_ITEMS } from '../../src/jobs/job.limits.ts';
import { createTicketBulkActivities, pauseAfter } from '../../src/jobs/ticket-bulk.activities.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { ticketBody, type Ws } from '../tickets/helpers.ts';
import { finishedJob, startBulkStack, type BulkStack } from './bulk.fixtures.ts';

const ITEMS = 25;
/** Stopped mid-way through the second chunk: one chunk done, part of the next committed, the rest pending. */
const STOP_AFTER_INDEX = CHUNK_ITEMS + 3;

/** Every ticket of the workspace with one of these subjects, with its events and history. */
async function ticketsBySubject(ws: Ws, subjects: string[]) {
  return prisma.ticket.findMany({
    where: { workspaceId: ws.workspace.id, subject: { in: subjects } },
    include: { history: true },
  });
}

describe('bulk job restart', () => {
  let stack: BulkStack;
  let ws: Ws;

  beforeAll(async () => {
    stack = await startBulkStack('bulk-restart');
    ws = await createTestWorkspace('Restart');
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  /** A stored job creating a ticket per subject that no workflow was told about, so only the chunks a test runs touch it. */
  async function unannouncedJob(subjects: string[]): Promise<string> {
    const created = await ws.key({ scopes: ['tickets:write'] });
    const jobId = newId('job');
    await jobRepository.insertJob({
      id: jobId,
      workspaceId: ws.workspace.id,
      apiKeyId: created.record.id,
      createdAt: new Date(),
      items: subjects.map((subject) => ({ op: 'create', input: ticketBody(ws, { subject }) })),
    });
    return jobId;
  }

  it('goes on after its worker is stopped mid-chunk, making each ticket exactly once', async () => {
    const key = (await ws.key({ scopes: ['tickets:read', 'tickets:write'] })).value;
    let reached!: () => void;
    const stopPoint = new Promise<void>((resolve) => (reached = resolve));
    const first = await stack.startWorker({
      afterItem: async (_jobId, index) => {
        if (index !== STOP_AFTER_INDEX) return;
        reached();
        // Hangs as a dying process would, until the worker's shutdown cancels the attempt.
        await Context.current().cancelled;
      },
    });
    const subjects = Array.from({ length: ITEMS }, (_, i) => `Restart ${i} ${newId('s')}`);
    const res = await api('POST', '/tickets/bulk', { key, body: { items: subjects.map((subject) => ({ create: ticketBody(ws, { subject }) })) } });
    expect(res.status, res.text).toBe(202);
    const jobId = res.body.id as string;

    await stopPoint;
    await first.stop();
    // What the stopped worker left: the items up to the stop point committed with their tickets, the rest pending.
    const items = await prisma.ticketBulkItem.findMany({ where: { jobId }, orderBy: { index: 'asc' } });
    expect(items.map((i) => i.status)).toEqual(Array.from({ length: ITEMS }, (_, i) => (i <= STOP_AFTER_INDEX ? 'succeeded' : 'pending')));
    expect(await ticketsBySubject(ws, subjects)).toHaveLength(STOP_AFTER_INDEX + 1);
    expect((await prisma.ticketBulkJob.findUniqueOrThrow({ where: { id: jobId } })).status).toBe('running');

    await stack.startWorker();
    const done = await finishedJob(key, jobId, 120_000);
    expect(done.body).toMatchObject({ status: 'completed', total: ITEMS, processed: ITEMS, succeeded: ITEMS, failed: 0 });

    const tickets = await ticketsBySubject(ws, subjects);
    expect(tickets.map((t) => t.subject).sort()).toEqual([...subjects].sort());
    const idBySubject = new Map(tickets.map((t) => [t.subject, t.id]));
    expect(done.body.items.map((i: { ticketId: number }) => i.ticketId)).toEqual(subjects.map((s) => idBySubject.get(s)));
    for (const t of tickets) expect(t.history.map((h) => h.action)).toEqual(['created']);
    const events = await prisma.event.findMany({ where: { ticketId: { in: tickets.map((t) => t.id) } }, select: { ticketId: true, type: true } });
    expect(events).toHaveLength(ITEMS);
    expect(new Set(events.map((e) => e.ticketId)).size).toBe(ITEMS);
    expect(events.every((e) => e.type === 'ticket.created')).toBe(true);
  }, 240_000);

  it('makes nothing twice when the same chunk runs twice at once', async () => {
    const subjects = Array.from({ length: 6 }, (_, i) => `Twice ${i} ${newId('s')}`);
    const jobId = await unannouncedJob(subjects);
    const outcomes = await Promise.all([jobRunner.runChunk(jobId), jobRunner.runChunk(jobId)]);
    expect(outcomes).toMatchObject([{ remaining: 0 }, { remaining: 0 }]);
    expect(await jobRunner.runChunk(jobId)).toMatchObject({ remaining: 0 });
    const tickets = await ticketsBySubject(ws, subjects);
    expect(tickets.map((t) => t.subject).sort()).toEqual([...subjects].sort());
    expect(await prisma.event.count({ where: { ticketId: { in: tickets.map((t) => t.id) } } })).toBe(subjects.length);
    const job = await prisma.ticketBulkJob.findUniqueOrThrow({ where: { id: jobId }, include: { items: true } });
    expect(job.status).toBe('completed');
    expect(job.items.every((i) => i.status === 'succeeded')).toBe(true);
  }, 60_000);

  it('pauses after each chunk that leaves items to do, for as long as the chunk took, and not after the last', async () => {
    const jobId = await unannouncedJob(Array.from({ length: CHUNK_ITEMS + 2 }, (_, i) => `Paced ${i} ${newId('s')}`));
    const pauses: number[] = [];
    const activities = createTicketBulkActivities({ pauseMs: (busyMs) => (pauses.push(busyMs), 0) });
    const runBulkChunk = (job: { jobId: string }) => activities.runBulkChunk(job);
    const env = new MockActivityEnvironment();
    expect(await env.run(runBulkChunk, { jobId })).toEqual({ remaining: 2 });
    expect(pauses).toHaveLength(1);
    expect(await env.run(runBulkChunk, { jobId })).toEqual({ remaining: 0 });
    expect(pauses).toHaveLength(1);
    // The default pause: the chunk's own time times the ratio, within its ceiling.
    expect(pauseAfter(400)).toBe(Math.round(400 * BULK_PAUSE_RATIO));
    expect(pauseAfter(10 * BULK_PAUSE_MAX_MS)).toBe(BULK_PAUSE_MAX_MS);
  }, 60_000);

  // The chunk's heartbeat time-out (10 s) is what notices a dead worker, so a live chunk must
  // heartbeat through its own waits too: for one of the worker's turns, and in its pause.
  it('heartbeats while it waits for a turn and while it pauses, not only as items end', async () => {
    const held = await unannouncedJob([`Held ${newId('s')}`, `Held ${newId('s')}`]);
    const waiting = await unannouncedJob([`Waiting ${newId('s')}`, `Waiting ${newId('s')}`]);
    let holding!: () => void;
    const turnTaken = new Promise<void>((resolve) => (holding = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // One turn: the first chunk holds it (inside its first item) until the test lets it go.
    const activities = createTicketBulkActivities({
      chunksInFlight: 1,
      pauseMs: () => 2_500,
      afterItem: async (jobId) => {
        if (jobId !== held) return;
        holding();
        await released;
      },
    });
    const runBulkChunk = (job: { jobId: string }) => activities.runBulkChunk(job);
    const first = new MockActivityEnvironment();
    const second = new MockActivityEnvironment();
    const beats: unknown[] = [];
    second.on('heartbeat', (details: unknown) => beats.push(details ?? 'waiting'));
    const holder = first.run(runBulkChunk, { jobId: held });
    await turnTaken;
    const waiter = second.run(runBulkChunk, { jobId: waiting });
    // Without its turn the second chunk has run no item, and still it heartbeats.
    await expect.poll(() => beats, { timeout: 20_000, interval: 100 }).toContain('waiting');
    expect(beats.every((b) => b === 'waiting')).toBe(true);
    release();
    await holder;
    // Its items (indexes 0 and 1) heartbeat as they end; the job has none left, so no pause.
    expect(await waiter).toEqual({ remaining: 0 });
    expect(beats.filter((b) => b !== 'waiting')).toEqual([0, 1]);

    // A chunk that leaves items pauses 2.5 s here, heartbeating meanwhile (every 2 s).
    const paced = await unannouncedJob(Array.from({ length: CHUNK_ITEMS + 1 }, (_, i) => `Paced beat ${i} ${newId('s')}`));
    const third = new MockActivityEnvironment();
    const afterItems: unknown[] = [];
    let itemsDone = 0;
    third.on('heartbeat', (details: unknown) => {
      if (details === undefined && itemsDone === CHUNK_ITEMS) afterItems.push('pausing');
      else if (details !== undefined) itemsDone += 1;
    });
    expect(await third.run(runBulkChunk, { jobId: paced })).toEqual({ remaining: 1 });
    expect(afterItems).toContain('pausing');
  }, 60_000);
});
