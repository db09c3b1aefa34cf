// Idempotency-Key (docs/integrators/api-conventions.md, "Idempotency"): the mechanism on its own (runIdempotent with executors we
// control), then end to end through the REST handler on an idempotent route.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, createTestWorkspace, randomSuffix } from '../support/fixtures.ts';
import { prisma } from '../../src/db/db.ts';
import { AppError } from '../../src/errors/errors.ts';
import { createApp } from '../../src/http/app.ts';
import { routes } from '../../src/api/routes.ts';
import { idempotencyRepository } from '../../src/idempotency/idempotency.repository.ts';
import {
  ABANDONED_AFTER_MS,
  RETENTION_MS,
  idempotencyKeyOf,
  requestHash,
  runIdempotent,
  type RouteResult,
} from '../../src/idempotency/idempotency.service.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

/** An executor that counts its runs and answers 201 with the run number. */
function counter() {
  const runs = { count: 0 };
  const execute = async (): Promise<RouteResult> => {
    runs.count += 1;
    return { status: 201, body: { run: runs.count }, headers: {} };
  };
  return { runs, execute };
}

describe('Idempotency-Key header', () => {
  const parse = (value?: string) => idempotencyKeyOf(new Headers(value === undefined ? {} : { 'Idempotency-Key': value }));

  it('is optional and takes 1 to 255 printable ASCII characters', () => {
    expect(parse()).toBeNull();
    expect(parse('a')).toBe('a');
    expect(parse('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe('8e03978e-40d5-43e8-bc93-6894a57f9324');
    expect(parse('x'.repeat(255))).toHaveLength(255);
    expect(parse('with inner space ~!')).toBe('with inner space ~!');
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'x'.repeat(256)],
    ['a tab', 'a\tb'],
    ['non-ASCII', 'cl\u00e9'],
  ])('refuses %s with 400 invalid_header', (_name, value) => {
    expect(() => parse(value)).toThrow(expect.objectContaining({ code: 'invalid_header', status: 400 }));
  });
});

describe('requestHash', () => {
  it('is canonical in member order and tells method, path and body apart', () => {
    const base = requestHash('POST', '/public/v1/tickets', { a: 1, b: { c: [1, 2], d: 'x' } });
    expect(requestHash('post', '/public/v1/tickets', { b: { d: 'x', c: [1, 2] }, a: 1 })).toBe(base);
    expect(requestHash('PATCH', '/public/v1/tickets', { a: 1, b: { c: [1, 2], d: 'x' } })).not.toBe(base);
    expect(requestHash('POST', '/public/v1/other', { a: 1, b: { c: [1, 2], d: 'x' } })).not.toBe(base);
    expect(requestHash('POST', '/public/v1/tickets', { a: 1, b: { c: [2, 1], d: 'x' } })).not.toBe(base);
  });
});

describe('runIdempotent', () => {
  let ws: Workspace;
  let apiKeyId: number;
  beforeAll(async () => {
    ws = await createTestWorkspace('Idempotency');
    apiKeyId = (await ws.key()).record.id;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const callWith = (key: string, body: unknown = { subject: 'Printer on fire' }) => ({
    apiKeyId,
    key,
    requestHash: requestHash('POST', '/public/v1/tickets', body),
    requestId: `req_${randomSuffix()}`,
    successStatus: 201,
  });

  it('runs the first request, stores its answer for 24 hours, and replays it without running again', async () => {
    const key = `k-${randomSuffix()}`;
    const { runs, execute } = counter();
    const before = Date.now();
    const first = await runIdempotent(callWith(key), execute);
    expect(first).toEqual({ status: 201, body: { run: 1 }, headers: {} });

    const record = await idempotencyRepository.find(apiKeyId, key);
    expect(record).toMatchObject({ state: 'completed', responseStatus: 201, responseBody: { run: 1 } });
    expect(record!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + RETENTION_MS);

    const again = await runIdempotent(callWith(key), execute);
    expect(again).toEqual({ status: 201, body: { run: 1 }, headers: { 'Idempotent-Replayed': 'true' } });
    expect(runs.count).toBe(1);
  });

  it('refuses the same key with another body: 422 idempotency_key_reused, nothing runs', async () => {
    const key = `k-${randomSuffix()}`;
    const { runs, execute } = counter();
    await runIdempotent(callWith(key), execute);
    await expect(runIdempotent(callWith(key, { subject: 'Another ticket' }), execute)).rejects.toMatchObject({
      code: 'idempotency_key_reused',
      status: 422,
    });
    expect(runs.count).toBe(1);
  });

  it('keys are per API key: another key may use the same value', async () => {
    const key = `k-${randomSuffix()}`;
    const other = (await ws.key()).record.id;
    const { runs, execute } = counter();
    await runIdempotent(callWith(key), execute);
    const second = await runIdempotent({ ...callWith(key), apiKeyId: other }, execute);
    expect(second.headers['Idempotent-Replayed']).toBeUndefined();
    expect(runs.count).toBe(2);
  });

  it('answers 409 idempotency_request_in_progress while the first still runs, then replays', async () => {
    const key = `k-${randomSuffix()}`;
    let started!: () => void;
    let finish!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const first = runIdempotent(callWith(key), async () => {
      started();
      await new Promise<void>((r) => (finish = r));
      return { status: 201, body: { id: 7 }, headers: {} };
    });
    await running;

    const { runs, execute } = counter();
    await expect(runIdempotent(callWith(key), execute)).rejects.toMatchObject({ code: 'idempotency_request_in_progress', status: 409 });
    await expect(runIdempotent(callWith(key, { other: true }), execute)).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    finish();
    expect(await first).toEqual({ status: 201, body: { id: 7 }, headers: {} });

    expect(await runIdempotent(callWith(key), execute)).toEqual({
      status: 201,
      body: { id: 7 },
      headers: { 'Idempotent-Replayed': 'true' },
    });
    expect(runs.count).toBe(0);
  });

  it('stores a 4xx outcome of the operation and replays it as problem+json', async () => {
    const key = `k-${randomSuffix()}`;
    const c = callWith(key);
    let runs = 0;
    const failing = async (): Promise<RouteResult> => {
      runs += 1;
      throw new AppError('not_found', 'No board brd_x');
    };
    await expect(runIdempotent(c, failing)).rejects.toMatchObject({ code: 'not_found' });
    const replayed = await runIdempotent(callWith(key), failing);
    expect(runs).toBe(1);
    expect(replayed.status).toBe(404);
    expect(replayed.headers).toEqual({ 'Idempotent-Replayed': 'true', 'Content-Type': 'application/problem+json' });
    expect(replayed.body).toMatchObject({ status: 404, code: 'not_found', detail: 'No board brd_x', requestId: c.requestId });
  });

  it.each([
    ['an unexpected error', () => new Error('connection reset')],
    ['a 500', () => new AppError('internal_error')],
    ['a 503', () => new AppError('service_unavailable')],
    ['a 429', () => new AppError('rate_limited')],
    ['a 403', () => new AppError('insufficient_scope')],
  ])('releases the key after %s, so that a retry runs afresh', async (_name, makeError) => {
    const key = `k-${randomSuffix()}`;
    const error = makeError();
    await expect(
      runIdempotent(callWith(key), async () => {
        throw error;
      }),
    ).rejects.toBe(error);
    expect(await idempotencyRepository.find(apiKeyId, key)).toBeNull();

    const { runs, execute } = counter();
    expect(await runIdempotent(callWith(key), execute)).toEqual({ status: 201, body: { run: 1 }, headers: {} });
    expect(runs.count).toBe(1);
  });

  it('twenty parallel requests with one key run the operation exactly once', async () => {
    const key = `k-${randomSuffix()}`;
    let runs = 0;
    const execute = async (): Promise<RouteResult> => {
      runs += 1;
      // Real work against the database, so the others arrive while this one is in progress.
      const rows = await prisma.apiKey.count({ where: { id: apiKeyId } });
      return { status: 201, body: { rows }, headers: {} };
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => runIdempotent(callWith(key), execute)));
    expect(runs).toBe(1);
    const fresh = outcomes.filter((o) => o.status === 'fulfilled' && !o.value.headers['Idempotent-Replayed']);
    expect(fresh).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === 'fulfilled') expect(o.value).toMatchObject({ status: 201, body: { rows: 1 } });
      else expect(o.reason).toMatchObject({ code: 'idempotency_request_in_progress' });
    }
    expect(await prisma.idempotencyRecord.count({ where: { apiKeyId, key } })).toBe(1);
  });

  it('ignores an expired record: the key runs afresh and gets a new 24 hours', async () => {
    const key = `k-${randomSuffix()}`;
    const old = await idempotencyRepository.claim({ apiKeyId, key, requestHash: 'old', expiresAt: new Date(Date.now() - 1000) });
    await idempotencyRepository.complete(old.id, 201, { old: true }, new Date());

    const { runs, execute } = counter();
    expect(await runIdempotent(callWith(key), execute)).toEqual({ status: 201, body: { run: 1 }, headers: {} });
    expect(runs.count).toBe(1);
    const record = await idempotencyRepository.find(apiKeyId, key);
    expect(record!.id).not.toBe(old.id);
    expect(record!.expiresAt.getTime()).toBeGreaterThan(Date.now());
  });

  it('no longer lets a request abandoned in progress (its process died) block the key', async () => {
    const key = `k-${randomSuffix()}`;
    const c = callWith(key);
    const stale = await idempotencyRepository.claim({ apiKeyId, key, requestHash: c.requestHash, expiresAt: new Date(Date.now() + RETENTION_MS) });
    await prisma.idempotencyRecord.update({ where: { id: stale.id }, data: { createdAt: new Date(Date.now() - ABANDONED_AFTER_MS - 1000) } });

    const { runs, execute } = counter();
    expect(await runIdempotent(c, execute)).toEqual({ status: 201, body: { run: 1 }, headers: {} });
    expect(runs.count).toBe(1);
  });
});

describe('Idempotency-Key through the REST handler', () => {
  // A test-only idempotent copy of POST /kb/articles: the same operation, at a path of its own.
  const createArticle = routes.find((r) => r.operationId === 'createKnowledgeBaseArticle')!;
  const app = createApp({
    routes: [...routes, { ...createArticle, operationId: 'createArticleIdempotently', path: '/test/kb/articles', idempotent: true }],
  });
  const post = (key: string, body: unknown, idempotencyKey?: string) =>
    api('POST', '/test/kb/articles', { app, key, body, headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey } });
  const articlesTitled = (workspaceId: number, title: string) => prisma.knowledgeBaseArticle.count({ where: { workspaceId, title } });

  let ws: Workspace;
  let writer: Awaited<ReturnType<Workspace['key']>>;
  beforeAll(async () => {
    ws = await createTestWorkspace('Idempotency REST');
    writer = await ws.key({ scopes: ['kb:write', 'kb:read'] });
  });

  it('twenty parallel requests with one key create exactly one record', async () => {
    const title = `Reset a password ${randomSuffix()}`;
    const body = { title, body: 'Open Settings, then Security.' };
    const key = `k-${randomSuffix()}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(writer.value, body, key)));

    const created = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(created).toHaveLength(1);
    const article = created[0].body;
    expect(article).toMatchObject({ id: expect.any(Number), title });
    for (const a of answers) {
      if (a.status === 201) {
        expect(a.body).toEqual(article);
      } else {
        expect(a.status).toBe(409);
        expect(a.headers.get('content-type')).toBe('application/problem+json');
        expect(a.body).toMatchObject({ code: 'idempotency_request_in_progress', status: 409 });
      }
    }
    expect(await articlesTitled(ws.workspace.id, title)).toBe(1);
    expect(await prisma.idempotencyRecord.count({ where: { apiKeyId: writer.record.id, key } })).toBe(1);

    const replay = await post(writer.value, { body: body.body, title }, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(replay.body).toEqual(article);
    expect(await articlesTitled(ws.workspace.id, title)).toBe(1);
  });

  it('answers 422 idempotency_key_reused for the same key with another body', async () => {
    const key = `k-${randomSuffix()}`;
    const title = `First ${randomSuffix()}`;
    expect((await post(writer.value, { title, body: 'x' }, key)).status).toBe(201);
    const reused = await post(writer.value, { title: `Second ${randomSuffix()}`, body: 'x' }, key);
    expect(reused.status).toBe(422);
    expect(reused.headers.get('content-type')).toBe('application/problem+json');
    expect(reused.body).toMatchObject({ code: 'idempotency_key_reused', status: 422, requestId: reused.headers.get('x-request-id') });
    expect(await articlesTitled(ws.workspace.id, title)).toBe(1);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['non-ASCII', 'cl\u00e9'],
  ])('answers 400 invalid_header for a %s key and creates nothing', async (_name, value) => {
    const title = `Bad key ${randomSuffix()}`;
    const res = await post(writer.value, { title, body: 'x' }, value);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_header', status: 400 });
    expect(await articlesTitled(ws.workspace.id, title)).toBe(0);
  });

  it('without the header, every request creates', async () => {
    const title = `No key ${randomSuffix()}`;
    expect((await post(writer.value, { title, body: 'x' })).status).toBe(201);
    expect((await post(writer.value, { title, body: 'x' })).status).toBe(201);
    expect(await articlesTitled(ws.workspace.id, title)).toBe(2);
  });

  it('scopes keys to the API key: two keys with one value each create', async () => {
    const other = await ws.key({ scopes: ['kb:write'] });
    const key = `k-${randomSuffix()}`;
    const title = `Two keys ${randomSuffix()}`;
    const a = await post(writer.value, { title, body: 'x' }, key);
    const b = await post(other.value, { title, body: 'x' }, key);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(await articlesTitled(ws.workspace.id, title)).toBe(2);
  });

  it('a body that fails validation claims nothing: the corrected request may use the key', async () => {
    const key = `k-${randomSuffix()}`;
    const invalid = await post(writer.value, { title: '', body: 'x' }, key);
    expect(invalid.status).toBe(422);
    expect(invalid.body.code).toBe('validation_failed');
    expect(await idempotencyRepository.find(writer.record.id, key)).toBeNull();
    const title = `Corrected ${randomSuffix()}`;
    const fixed = await post(writer.value, { title, body: 'x' }, key);
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a refusal for a missing scope is not stored', async () => {
    const reader = await ws.key({ scopes: ['kb:read'] });
    const key = `k-${randomSuffix()}`;
    const res = await post(reader.value, { title: 'Nope', body: 'x' }, key);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect(await idempotencyRepository.find(reader.record.id, key)).toBeNull();
  });
});

describe('Idempotency-Key on POST /tickets', () => {
  let ws: Workspace;
  let agent: Awaited<ReturnType<Workspace['key']>>;
  beforeAll(async () => {
    ws = await createTestWorkspace('Idempotent tickets');
    agent = await ws.key({ scopes: ['tickets:write', 'tickets:read'] });
  });

  const ticketBody = (subject: string) => {
    const support = ws.boards.find((b) => b.name === 'Support')!;
    const product = support.fields.find((f) => f.name === 'Product')!;
    return { boardId: support.id, subject, requesterEmail: 'ana@example.test', fields: [{ fieldId: product.id, value: 'Web' }] };
  };
  const post = (body: unknown, idempotencyKey: string) =>
    api('POST', '/tickets', { key: agent.value, body, headers: { 'Idempotency-Key': idempotencyKey } });
  const ticketsWithSubject = (subject: string) => prisma.ticket.count({ where: { workspaceId: ws.workspace.id, subject } });

  it('twenty parallel requests with one key create exactly one ticket; a repeat replays it', async () => {
    const subject = `Checkout fails ${randomSuffix()}`;
    const key = `k-${randomSuffix()}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(ticketBody(subject), key)));

    const created = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(created).toHaveLength(1);
    const ticket = created[0].body;
    expect(ticket).toMatchObject({ id: expect.any(Number), subject, channel: 'api' });
    for (const a of answers) {
      if (a.status === 201) expect(a.body).toEqual(ticket);
      else expect(a.body).toMatchObject({ status: 409, code: 'idempotency_request_in_progress' });
    }
    expect(await ticketsWithSubject(subject)).toBe(1);

    const replay = await post(ticketBody(subject), key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(ticket);

    const reused = await post(ticketBody(`${subject} (edited)`), key);
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(await ticketsWithSubject(subject)).toBe(1);
  });

  it('replays a 4xx the operation gave (an unknown board) without running it again', async () => {
    const subject = `Unknown board ${randomSuffix()}`;
    const key = `k-${randomSuffix()}`;
    const body = { ...ticketBody(subject), boardId: 'brd_doesnotexist', fields: [] };
    const first = await post(body, key);
    expect(first.status).toBeGreaterThanOrEqual(400);
    expect(first.status).toBeLessThan(500);
    const again = await post(body, key);
    expect(again.status).toBe(first.status);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe('application/problem+json');
    expect(again.body).toEqual(first.body);
    expect(await ticketsWithSubject(subject)).toBe(0);
  });
});
