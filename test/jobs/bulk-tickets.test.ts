// Bulk ticket jobs through the REST facade and GraphQL, with a real Temporal dev server and worker
// and the database: what is answered, what is made (tickets, history, events), and what is refused
// before anything is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';
import { MAX_UNFINISHED_JOBS_PER_WORKSPACE } from '../../src/jobs/job.limits.ts';
import { jobRepository } from '../../src/jobs/job.repository.ts';
import { jobService } from '../../src/jobs/job.service.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { billingBoard, createTicket, eventsOf, gql, historyOf, supportBoard, ticketBody, type Ws } from '../tickets/helpers.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { invalidateLocally } from '../../src/access/invalidation.ts';
import { finishedJob, startBulkStack, type BulkStack } from './bulk.fixtures.ts';

const JOB_ID = /^job_[0-9A-Z]{26}$/;

describe('bulk ticket jobs (REST and GraphQL)', () => {
  let stack: BulkStack;
  let ws: Ws;
  let other: Ws;

  beforeAll(async () => {
    stack = await startBulkStack('bulk-api');
    await stack.startWorker();
    ws = await createTestWorkspace();
    other = await createTestWorkspace('Other workspace');
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const newKey = async (w: Ws = ws, input: Parameters<Ws['key']>[0] = {}) => (await w.key({ scopes: ['tickets:read', 'tickets:write'], ...input })).value;
  const bulk = (key: string, body: unknown, headers: Record<string, string> = {}) => api('POST', '/tickets/bulk', { key, body, headers });
  const jobsOf = (w: Ws) => prisma.ticketBulkJob.count({ where: { workspaceId: w.workspace.id } });

  it('answers 202 with the queued job, then makes each item as its own call would: tickets, history and one event each', async () => {
    const key = await newKey();
    const existing = await createTicket(ws, key, { subject: 'To be moved' });
    const s = supportBoard(ws);
    const moveTo = s.board.states.find((st) => st.name !== existing.state.name)!.name;
    const res = await bulk(key, {
      items: [
        { create: ticketBody(ws, { subject: 'Bulk one' }) },
        { create: ticketBody(ws, { subject: 'Bulk two', priority: undefined }) },
        { update: { id: existing.id, version: existing.version, subject: 'Moved in bulk', state: moveTo } },
      ],
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({
      id: expect.stringMatching(JOB_ID),
      status: 'queued',
      total: 3,
      processed: 0,
      succeeded: 0,
      failed: 0,
      createdAt: expect.any(String),
      startedAt: null,
      finishedAt: null,
      expiresAt: null,
      items: [
        { index: 0, operation: 'create', status: 'pending', ticketId: null, error: null },
        { index: 1, operation: 'create', status: 'pending', ticketId: null, error: null },
        { index: 2, operation: 'update', status: 'pending', ticketId: null, error: null },
      ],
    });

    const done = await finishedJob(key, res.body.id);
    expect(done.status).toBe(200);
    expect(done.body.items.filter((i: { error: unknown }) => i.error)).toEqual([]);
    expect(done.body).toMatchObject({ status: 'completed', total: 3, processed: 3, succeeded: 3, failed: 0, startedAt: expect.any(String), finishedAt: expect.any(String), expiresAt: expect.any(String) });
    const [one, two, moved] = done.body.items;
    expect(moved).toEqual({ index: 2, operation: 'update', status: 'succeeded', ticketId: existing.id, error: null });

    for (const [item, subject] of [[one, 'Bulk one'], [two, 'Bulk two']] as const) {
      const ticket = await api('GET', `/tickets/${item.ticketId}`, { key });
      expect(ticket.body).toMatchObject({ subject, channel: 'api', boardId: s.board.id, version: 1 });
      expect((await eventsOf(item.ticketId)).map((e) => e.type)).toEqual(['ticket.created']);
      expect((await historyOf(item.ticketId)).map((h) => h.action)).toEqual(['created']);
    }
    // The board's first priority when none is given, as POST /tickets does.
    expect((await api('GET', `/tickets/${two.ticketId}`, { key })).body.priority).toBe(s.board.priorities[0]);
    const after = await api('GET', `/tickets/${existing.id}`, { key });
    expect(after.body).toMatchObject({ subject: 'Moved in bulk', state: { name: moveTo }, version: existing.version + 1 });
    expect((await eventsOf(existing.id)).map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated', 'ticket.state_changed']);
  }, 120_000);

  it('fails each bad item on its own, with the problem its own call would answer, and makes the others', async () => {
    const key = await newKey();
    const otherKey = await newKey(other);
    const mine = await createTicket(ws, key, { subject: 'Mine' });
    const theirs = await createTicket(other, otherKey, { subject: 'Theirs' });
    const res = await bulk(key, {
      items: [
        { create: ticketBody(ws, { subject: 'Good before' }) },
        { create: ticketBody(other, { subject: 'On their board' }) },
        { update: { id: theirs.id, subject: 'Taken over' } },
        { update: { id: mine.id, version: mine.version + 5, subject: 'Stale' } },
        { create: ticketBody(ws, { priority: 'not a priority' }) },
        { update: { id: 2_000_000_000, subject: 'Nobody' } },
        { create: ticketBody(ws, { subject: 'Good after' }) },
      ],
    });
    expect(res.status, res.text).toBe(202);
    const done = await finishedJob(key, res.body.id);
    expect(done.body).toMatchObject({ status: 'completed', total: 7, processed: 7, succeeded: 2, failed: 5 });
    const items = done.body.items;
    expect(items.map((i: { status: string }) => i.status)).toEqual(['succeeded', 'failed', 'failed', 'failed', 'failed', 'failed', 'succeeded']);
    expect(items[1].error).toMatchObject({ code: 'validation_failed', errors: [{ path: '/boardId', message: expect.any(String) }] });
    expect(items[2].error).toMatchObject({ code: 'not_found' });
    expect(items[3].error).toMatchObject({ code: 'precondition_failed' });
    expect(items[4].error).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: '/priority' })] });
    expect(items[5].error).toMatchObject({ code: 'not_found' });
    for (const failed of items.filter((i: { status: string }) => i.status === 'failed')) expect(failed.ticketId).toBeNull();
    // Nothing leaked into or out of the other workspace.
    expect(JSON.stringify(items)).not.toContain('Theirs');
    expect((await api('GET', `/tickets/${theirs.id}`, { key: otherKey })).body).toMatchObject({ subject: 'Theirs', version: 1 });
    expect(await prisma.ticket.count({ where: { workspaceId: other.workspace.id, subject: 'On their board' } })).toBe(0);
    expect((await api('GET', `/tickets/${mine.id}`, { key })).body).toMatchObject({ subject: 'Mine', version: mine.version });
    expect(await prisma.ticket.count({ where: { workspaceId: ws.workspace.id, subject: { in: ['Good before', 'Good after'] } } })).toBe(2);
  }, 120_000);

  it('with an Idempotency-Key, a repeat answers the first job and stores nothing new; another body with the key is refused', async () => {
    const key = await newKey();
    const body = { items: [{ create: ticketBody(ws, { subject: 'Once only' }) }, { create: ticketBody(ws, { subject: 'Once only too' }) }] };
    const headers = { 'Idempotency-Key': `bulk-${newId('k')}` };
    const first = await bulk(key, body, headers);
    expect(first.status, first.text).toBe(202);
    const again = await bulk(key, body, headers);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    await finishedJob(key, first.body.id);
    const third = await bulk(key, body, headers);
    expect(third.body.id).toBe(first.body.id);
    expect(await prisma.ticketBulkJob.count({ where: { id: first.body.id } })).toBe(1);
    expect(await prisma.ticket.count({ where: { workspaceId: ws.workspace.id, subject: { in: ['Once only', 'Once only too'] } } })).toBe(2);
    const reused = await bulk(key, { items: [body.items[0]] }, headers);
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
  }, 120_000);

  it('refuses hostile input cheaply, before anything is stored: too many items, wrong types, an oversize body', async () => {
    const fresh = await createTestWorkspace('Hostile');
    const key = await newKey(fresh);
    const item = { create: ticketBody(fresh) };
    const cases: [unknown, number, string, string[]][] = [
      [{ items: Array.from({ length: 101 }, () => item) }, 422, 'validation_failed', ['/items']],
      [{ items: [] }, 422, 'validation_failed', ['/items']],
      [{ items: 'all of them' }, 422, 'validation_failed', ['/items']],
      [{}, 422, 'validation_failed', ['/items']],
      [[item], 422, 'validation_failed', ['']],
      [{ items: [{ create: { ...item.create, subject: 5 } }] }, 422, 'validation_failed', ['/items/0/create/subject']],
      [{ items: [item, { create: item.create, update: { id: 1, subject: 'x' } }] }, 422, 'validation_failed', ['/items/1']],
      [{ items: [{}] }, 422, 'validation_failed', ['/items/0']],
      [{ items: [{ delete: { id: 1 } }] }, 422, 'validation_failed', ['/items/0/delete']],
      [{ items: [{ update: { id: 'one', subject: 'x' } }] }, 422, 'validation_failed', ['/items/0/update/id']],
      [{ items: [{ update: { id: 1 } }] }, 422, 'validation_failed', ['/items/0/update']],
      [{ items: [{ update: { id: -4, version: 1.5, subject: 'x' } }] }, 422, 'validation_failed', ['/items/0/update/id', '/items/0/update/version']],
      [{ items: [item], extra: true }, 422, 'validation_failed', ['/extra']],
    ];
    for (const [body, status, code, paths] of cases) {
      const res = await bulk(key, body);
      expect(res.status, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe(code);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(paths));
    }
    // 100 items of the longest description are far beyond the 1 MiB body limit.
    const huge = { items: Array.from({ length: 100 }, () => ({ create: ticketBody(fresh, { description: 'x'.repeat(60_000) }) })) };
    const tooLarge = await bulk(key, huge);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe('payload_too_large');
    const notJson = await api('POST', '/tickets/bulk', { key, rawBody: '{"items": [', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBe('invalid_json');
    expect(await jobsOf(fresh)).toBe(0);
  }, 60_000);

  it('answers 405 with Allow: POST for another method on /tickets/bulk (not a ticket id)', async () => {
    const key = await newKey();
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await api(method, '/tickets/bulk', { key, ...(method === 'PATCH' ? { body: { subject: 'x' } } : {}) });
      expect(res.status, `${method}: ${res.text}`).toBe(405);
      expect(res.body.code).toBe('method_not_allowed');
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('refuses a key without tickets:write, and a role that may not change tickets, before anything is stored', async () => {
    const fresh = await createTestWorkspace('Scopes');
    const body = { items: [{ create: ticketBody(fresh) }] };
    const reader = await bulk(await newKey(fresh, { scopes: ['tickets:read'] }), body);
    expect(reader.status).toBe(403);
    expect(reader.body.code).toBe('insufficient_scope');
    const viewer = await bulk(await newKey(fresh, { role: fresh.roles.viewer.id }), body);
    expect(viewer.status).toBe(403);
    expect(viewer.body.code).toBe('forbidden');
    expect(await jobsOf(fresh)).toBe(0);
  });

  it('counts each item against the key’s allowance: more items than it has left answer 429 with Retry-After and store nothing', async () => {
    const fresh = await createTestWorkspace('Allowance');
    const created = await fresh.key({ scopes: ['tickets:write'] });
    await prisma.apiKey.update({ where: { id: created.record.id }, data: { requestsPerMinute: 5 } });
    const items = (n: number) => ({ items: Array.from({ length: n }, (_, i) => ({ create: ticketBody(fresh, { subject: `Allowance ${i}` }) })) });
    const tooMany = await bulk(created.value, items(6));
    expect(tooMany.status, tooMany.text).toBe(429);
    expect(tooMany.body.code).toBe('rate_limited');
    expect(Number(tooMany.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await jobsOf(fresh)).toBe(0);
  });

  it('answers 429 for one more job while the workspace has its maximum of unfinished jobs', async () => {
    const fresh = await createTestWorkspace('Job cap');
    const key = await fresh.key({ scopes: ['tickets:write'] });
    // Held queued: rows of jobs no workflow was told about.
    await prisma.ticketBulkJob.createMany({
      data: Array.from({ length: MAX_UNFINISHED_JOBS_PER_WORKSPACE }, () => ({ id: newId('job'), workspaceId: fresh.workspace.id, apiKeyId: key.record.id, total: 1 })),
    });
    const res = await bulk(key.value, { items: [{ create: ticketBody(fresh) }] });
    expect(res.status, res.text).toBe(429);
    expect(res.body.code).toBe('rate_limited');
    expect(res.headers.get('retry-after')).toBe('60');
    expect(await jobsOf(fresh)).toBe(MAX_UNFINISHED_JOBS_PER_WORKSPACE);
  });

  it('shows a job only to the key that submitted it: another key of the workspace, another workspace, a missing id and a malformed one are 404', async () => {
    const key = await newKey();
    const otherKey = await newKey(other);
    // Same workspace, same role and scopes: its items may name tickets on boards another key's
    // role does not reach, so a job is its submitter's alone.
    const colleague = await newKey();
    const res = await bulk(key, { items: [{ create: ticketBody(ws, { subject: 'Private job' }) }] });
    expect(res.status).toBe(202);
    const foreign = await api('GET', `/jobs/${res.body.id}`, { key: otherKey });
    const sibling = await api('GET', `/jobs/${res.body.id}`, { key: colleague });
    const missing = await api('GET', `/jobs/${newId('job')}`, { key: otherKey });
    // The same answer as for a job that does not exist.
    expect(sibling.body.detail).toBe(`No job ${res.body.id}`);
    for (const r of [foreign, sibling, missing]) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
    }
    expect(foreign.body.detail).not.toContain('Private');
    expect((await api('GET', '/jobs/job_nope', { key })).status).toBe(404);
    for (const reader of [otherKey, colleague]) {
      const viaGraphQL = await gql(reader, 'query($id: String!) { ticketBulkJob(id: $id) { id } }', { id: res.body.id });
      expect(viaGraphQL.errors?.[0]?.extensions.code).toBe('not_found');
    }
    const own = await gql(key, 'query($id: String!) { ticketBulkJob(id: $id) { id } }', { id: res.body.id });
    expect(own.data?.ticketBulkJob?.id).toBe(res.body.id);
    await finishedJob(key, res.body.id);
  }, 120_000);

  it('judges each item’s ticket by the key’s role when read: a narrowed role no longer sees the ids of tickets on boards it lost', async () => {
    // A workspace of its own: its Agent role is narrowed below.
    const narrowed = await createTestWorkspace('Narrowed');
    const key = await narrowed.key({ role: narrowed.roles.agent.id, scopes: ['tickets:read', 'tickets:write'] });
    const billing = billingBoard(narrowed);
    const onBilling = await createTicket(narrowed, key.value, { boardId: billing.board.id, fields: [{ fieldId: billing.invoice, value: 'INV-1' }], subject: 'Billing question' });
    const res = await bulk(key.value, {
      items: [
        { create: ticketBody(narrowed, { subject: 'Support, kept in sight' }) },
        { update: { id: onBilling.id, subject: 'Billing, changed' } },
        { update: { id: onBilling.id, version: 99, subject: 'Billing, stale' } },
      ],
    });
    expect(res.status, res.text).toBe(202);
    const done = await finishedJob(key.value, res.body.id);
    expect(done.body.items.map((i: { status: string; ticketId: number | null }) => [i.status, i.ticketId])).toEqual([
      ['succeeded', expect.any(Number)],
      ['succeeded', onBilling.id],
      ['failed', null],
    ]);
    expect(done.body.items[2].error).toMatchObject({ code: 'precondition_failed' });

    await workspaceRepository.restrictRole(narrowed.roles.agent.id, [supportBoard(narrowed).board.id]);
    invalidateLocally({ kind: 'apiKey', id: key.record.id }); // the key's role is read again at once (else within 10 s)
    const after = await api('GET', `/jobs/${res.body.id}`, { key: key.value });
    expect(after.status).toBe(200);
    expect(after.body.items).toEqual([
      done.body.items[0],
      // As its own call would answer now: no ticket id, and the failure a ticket out of sight gets.
      { index: 1, operation: 'update', status: 'succeeded', ticketId: null, error: null },
      { index: 2, operation: 'update', status: 'failed', ticketId: null, error: { code: 'not_found', detail: `No ticket ${onBilling.id}`, errors: null } },
    ]);
    expect(after.body).toMatchObject({ succeeded: 2, failed: 1 });
    const viaGraphQL = await gql(key.value, 'query($id: String!) { ticketBulkJob(id: $id) { items { ticketId error { code } } } }', { id: res.body.id });
    expect(viaGraphQL.data.ticketBulkJob.items.slice(1)).toEqual([{ ticketId: null, error: null }, { ticketId: null, error: { code: 'not_found' } }]);
  }, 120_000);

  it('picks up a job stored while its workflow could not be told, when a worker (re)connects', async () => {
    const created = await ws.key({ scopes: ['tickets:read', 'tickets:write'] });
    const subject = `Stored while Temporal was away ${newId('s')}`;
    // As an accept whose signal-with-start failed leaves it: stored, queued, no workflow told.
    const jobId = newId('job');
    await jobRepository.insertJob({ id: jobId, workspaceId: ws.workspace.id, apiKeyId: created.record.id, createdAt: new Date(), items: [{ op: 'create', input: ticketBody(ws, { subject }) }] });
    await jobService.resumeUnfinished(stack.temporal.client, stack.taskQueue);
    const done = await finishedJob(created.value, jobId);
    expect(done.body).toMatchObject({ status: 'completed', succeeded: 1 });
    expect(await prisma.ticket.count({ where: { workspaceId: ws.workspace.id, subject } })).toBe(1);
  }, 120_000);

  it('runs through GraphQL: bulkTickets answers the queued job, ticketBulkJob follows it', async () => {
    const key = await newKey();
    const created = await gql(
      key,
      `mutation($items: [TicketBulkItemInput!]!) { bulkTickets(items: $items) { id status total items { index operation status } } }`,
      { items: [{ create: ticketBody(ws, { subject: 'From GraphQL' }) }, { update: { id: 2_000_000_000, subject: 'Nobody' } }] },
    );
    expect(created.errors).toBeUndefined();
    const job = created.data.bulkTickets;
    expect(job).toMatchObject({ id: expect.stringMatching(JOB_ID), status: 'queued', total: 2 });
    let last: any;
    await expect
      .poll(async () => {
        last = (await gql(key, 'query($id: String!) { ticketBulkJob(id: $id) { status succeeded failed items { status ticketId error { code } } } }', { id: job.id })).data?.ticketBulkJob;
        return last?.status;
      }, { timeout: 60_000, interval: 200 })
      .toBe('completed');
    expect(last).toMatchObject({ succeeded: 1, failed: 1, items: [{ status: 'succeeded', ticketId: expect.any(Number), error: null }, { status: 'failed', ticketId: null, error: { code: 'not_found' } }] });
    expect((await eventsOf(last.items[0].ticketId)).map((e) => e.type)).toEqual(['ticket.created']);

    const bad = await gql(key, `mutation($items: [TicketBulkItemInput!]!) { bulkTickets(items: $items) { id } }`, { items: [{}] });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: '/items/0' })] });
  }, 120_000);
});
