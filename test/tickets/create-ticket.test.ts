import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace, randomSuffix } from '../support/fixtures.ts';
import { prisma } from '../../src/db/db.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { billingBoard, createTicket, eventsOf, expect422, historyOf, supportBoard, ticketBody, type Ws } from './helpers.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /tickets', () => {
  let ws: Ws;
  let key: Awaited<ReturnType<Ws['key']>>;
  beforeAll(async () => {
    ws = await createTestWorkspace();
    key = await ws.key({ name: 'Zapier', scopes: ['tickets:write'], role: ws.roles.agent.id });
  });

  it('answers 201 with the full representation, channel api, created by the key’s service account', async () => {
    const s = supportBoard(ws);
    const res = await api('POST', '/tickets', {
      key: key.value,
      body: ticketBody(ws, { fields: [{ fieldId: s.affectedUsers, value: 12 }, { fieldId: s.product, value: 'Web' }] }),
    });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      id: expect.any(Number),
      boardId: s.board.id,
      subject: 'Checkout fails',
      description: 'The pay button does nothing',
      state: { id: s.state('New').id, name: 'New', category: 'open' },
      priority: 'high',
      requester: { email: 'customer@example.com' },
      // In the board's field order, whatever the order sent.
      fields: [
        { fieldId: s.product, value: 'Web' },
        { fieldId: s.affectedUsers, value: 12 },
      ],
      channel: 'api',
      createdBy: { id: key.record.serviceUserId, name: 'Zapier (API key)' },
      version: 1,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const again = await api('GET', `/tickets/${res.body.id}`, { key: key.value });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it('records the creation in history, the outbox and admin notifications, all naming the service account', async () => {
    const ticket = await createTicket(ws, key.value, { subject: 'Attributed' });
    const serviceUserId = key.record.serviceUserId;

    const history = await historyOf(ticket.id);
    expect(history).toEqual([expect.objectContaining({ action: 'created', actorId: serviceUserId, channel: 'api', changes: [] })]);

    const events = await eventsOf(ticket.id);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({ type: 'ticket.created', actorId: serviceUserId, boardId: ticket.boardId, workspaceId: ws.workspace.id });
    expect(event.id).toMatch(/^evt_[0-9A-Z]{26}$/);
    // The envelope of the spec, its data the very representation the API answered with.
    expect(event.payload).toEqual({
      id: event.id,
      type: 'ticket.created',
      occurredAt: event.occurredAt.toISOString(),
      workspace: ws.workspace.domain,
      actor: { id: serviceUserId, name: 'Zapier (API key)' },
      changes: null,
      data: ticket,
    });

    const notices = await prisma.notification.findMany({ where: { workspaceId: ws.workspace.id, kind: 'ticket.created', data: { path: ['ticketId'], equals: ticket.id } } });
    expect(notices.map((n) => n.userId)).toEqual([ws.admin.id]);
    expect(notices[0].body).toContain('Zapier (API key)');
    expect(notices[0].data).toMatchObject({ actor: { id: serviceUserId, name: 'Zapier (API key)' } });
  });

  it('defaults the priority to the board’s first and the description to empty', async () => {
    const { priority: _p, description: _d, ...body } = ticketBody(ws);
    const res = await api('POST', '/tickets', { key: key.value, body });
    expect(res.status, res.text).toBe(201);
    expect(res.body.priority).toBe(supportBoard(ws).board.priorities[0]);
    expect(res.body.description).toBe('');
  });

  it('accepts each field type of another board and starts in that board’s initial state', async () => {
    const b = billingBoard(ws);
    const res = await api('POST', '/tickets', {
      key: key.value,
      body: {
        boardId: b.board.id,
        subject: 'Refund',
        requesterEmail: 'payer@example.org',
        priority: 'normal',
        fields: [
          { fieldId: b.dueDate, value: '2024-02-29' },
          { fieldId: b.invoice, value: 'INV-1' },
          { fieldId: b.refund, value: true },
        ],
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.state).toEqual({ id: b.board.states.find((s) => s.isInitial)!.id, name: 'Open', category: 'open' });
    expect(res.body.fields).toEqual([
      { fieldId: b.invoice, value: 'INV-1' },
      { fieldId: b.refund, value: true },
      { fieldId: b.dueDate, value: '2024-02-29' },
    ]);
  });
});

describe('POST /tickets validation: 422 with errors[] paths', () => {
  let ws: Ws;
  let key: string;
  let tagsBoard: Awaited<ReturnType<typeof workspaceRepository.createBoard>>;
  beforeAll(async () => {
    ws = await createTestWorkspace();
    key = (await ws.key({ scopes: ['tickets:write'] })).value;
    tagsBoard = await workspaceRepository.createBoard(ws.workspace.id, {
      name: 'Tags',
      priorities: ['p1'],
      fields: [{ name: 'Tags', type: 'multiselect', options: ['a', 'b', 'c'] }],
      states: [{ name: 'Open', category: 'open', initial: true }],
    });
  });

  const post = (body: unknown) => api('POST', '/tickets', { key, body });
  const support = () => supportBoard(ws);

  it('unknown members, at the top and inside fields[]', async () => {
    expect422(await post(ticketBody(ws, { foo: 1, bar: 2 })), ['/foo', '/bar']);
    expect422(await post(ticketBody(ws, { fields: [{ fieldId: support().product, value: 'Web', extra: true }] })), ['/fields/0/extra']);
  });

  it('missing members and wrong types', async () => {
    expect422(await post({}), ['/boardId', '/subject', '/requesterEmail']);
    expect422(await post(ticketBody(ws, { subject: 123, priority: 5, fields: 'Web', description: null })), ['/subject', '/priority', '/fields', '/description']);
    expect422(await post([ticketBody(ws)]), ['']);
    expect422(await post(ticketBody(ws, { fields: [{ fieldId: support().product }] })), ['/fields/0/value']);
  });

  it('a requester e-mail that is not one', async () => {
    for (const requesterEmail of ['not-an-email', 'a@b', 'a b@example.com', `${'x'.repeat(250)}@example.com`]) {
      expect422(await post(ticketBody(ws, { requesterEmail })), ['/requesterEmail']);
    }
  });

  it('a board that does not exist, or that the role does not see: 422 on /boardId', async () => {
    expect422(await post(ticketBody(ws, { boardId: 'brd_00000000000000000000000000' })), ['/boardId']);
    expect422(await post(ticketBody(ws, { boardId: '../../etc' })), ['/boardId']);
    const other = await createTestWorkspace();
    expect422(await post(ticketBody(ws, { boardId: other.boards[0].id })), ['/boardId']);
  });

  it('a priority outside the board’s set', async () => {
    const res = await post(ticketBody(ws, { priority: 'critical' }));
    expect422(res, ['/priority']);
    expect(res.body.errors[0].message).toContain('low, normal, high, urgent');
  });

  it('unknown, repeated and missing required fields', async () => {
    const s = support();
    expect422(await post(ticketBody(ws, { fields: [{ fieldId: s.product, value: 'Web' }, { fieldId: 'fld_nope', value: 1 }] })), ['/fields/1/fieldId']);
    expect422(await post(ticketBody(ws, { fields: [{ fieldId: s.product, value: 'Web' }, { fieldId: s.product, value: 'API' }] })), ['/fields/1/fieldId']);
    expect422(await post(ticketBody(ws, { fields: [{ fieldId: s.orderNumber, value: 'A-1' }] })), ['/fields']);
    expect422(await post(ticketBody(ws, { fields: [{ fieldId: s.product, value: null }] })), ['/fields/0/value']);
    // A field of another board is unknown on this one.
    const b = billingBoard(ws);
    expect422(await post(ticketBody(ws, { fields: [{ fieldId: s.product, value: 'Web' }, { fieldId: b.invoice, value: 'x' }] })), ['/fields/1/fieldId']);
  });

  it('values that do not fit their field’s type', async () => {
    const s = support();
    const b = billingBoard(ws);
    const withField = (fieldId: string, value: unknown) => ticketBody(ws, { fields: [{ fieldId: s.product, value: 'Web' }, { fieldId, value }] });
    expect422(await post(ticketBody(ws, { fields: [{ fieldId: s.product, value: 'Desktop' }] })), ['/fields/0/value']);
    expect422(await post(ticketBody(ws, { fields: [{ fieldId: s.product, value: ['Web'] }] })), ['/fields/0/value']);
    expect422(await post(withField(s.affectedUsers, '12')), ['/fields/1/value']);
    expect422(await post(withField(s.orderNumber, 42)), ['/fields/1/value']);
    expect422(await post(withField(s.orderNumber, 'x'.repeat(65_537))), ['/fields/1/value']);
    const billing = (fieldId: string, value: unknown) => ({
      ...ticketBody(ws, { boardId: b.board.id, priority: 'normal' }),
      fields: [{ fieldId: b.invoice, value: 'INV' }, { fieldId, value }],
    });
    expect422(await post(billing(b.refund, 'yes')), ['/fields/1/value']);
    for (const date of ['2023-02-29', '2024-13-01', '01/02/2024', '2024-01-01T00:00:00Z']) {
      expect422(await post(billing(b.dueDate, date)), ['/fields/1/value']);
    }
    // 1e400 is valid JSON but not a finite number.
    const raw = JSON.stringify(withField(s.affectedUsers, 0)).replace('"value":0', '"value":1e400');
    expect422(await api('POST', '/tickets', { key, rawBody: raw, headers: { 'content-type': 'application/json' } }), ['/fields/1/value']);
  });

  it('multiselect values: options of the field, each once', async () => {
    const fieldId = tagsBoard.fields[0].id;
    const body = (value: unknown) => ({ boardId: tagsBoard.id, subject: 's', requesterEmail: 'r@example.com', fields: [{ fieldId, value }] });
    const ok = await post(body(['a', 'c']));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.fields).toEqual([{ fieldId, value: ['a', 'c'] }]);
    expect422(await post(body(['a', 'z'])), ['/fields/0/value/1']);
    expect422(await post(body(['a', 'a'])), ['/fields/0/value']);
    expect422(await post(body('a')), ['/fields/0/value']);
  });

  it('huge strings, too many fields and NUL characters', async () => {
    expect422(await post(ticketBody(ws, { subject: 'x'.repeat(251) })), ['/subject']);
    expect422(await post(ticketBody(ws, { subject: '   ' })), ['/subject']);
    expect422(await post(ticketBody(ws, { description: 'x'.repeat(65_537) })), ['/description']);
    expect422(await post(ticketBody(ws, { boardId: 'b'.repeat(65) })), ['/boardId']);
    expect422(await post(ticketBody(ws, { priority: 'p'.repeat(101) })), ['/priority']);
    const many = Array.from({ length: 101 }, (_, i) => ({ fieldId: `fld_${i}`, value: 1 }));
    expect422(await post(ticketBody(ws, { fields: many })), ['/fields']);
    expect422(await post(ticketBody(ws, { subject: 'a\u0000b' })), ['/subject']);
    expect422(await post(ticketBody(ws, { description: '\u0000' })), ['/description']);
    const s = support();
    expect422(await post(ticketBody(ws, { fields: [{ fieldId: s.product, value: 'Web' }, { fieldId: s.orderNumber, value: 'A\u0000' }] })), ['/fields/1/value']);
    // The largest accepted subject is stored whole.
    const longest = await post(ticketBody(ws, { subject: 'é'.repeat(250) }));
    expect(longest.status).toBe(201);
    expect(longest.body.subject).toBe('é'.repeat(250));
  });

  it('every failed validation leaves nothing behind', async () => {
    const stored = await prisma.ticket.findMany({ where: { workspaceId: ws.workspace.id }, select: { subject: true } });
    expect(stored.map((t) => t.subject).sort()).toEqual(['s', 'é'.repeat(250)]);
  });
});

describe('POST /tickets: bodies that are not JSON objects', () => {
  let ws: Ws;
  let key: string;
  beforeAll(async () => {
    ws = await createTestWorkspace();
    key = (await ws.key({ scopes: ['tickets:write'] })).value;
  });

  const raw = (rawBody: BodyInit, contentType = 'application/json') => api('POST', '/tickets', { key, rawBody, headers: { 'content-type': contentType } });

  it('malformed JSON: 400 invalid_json', async () => {
    for (const body of ['{"subject": ', '{subject: 1}', 'nul', '']) {
      const res = await raw(body);
      expect(res.status, body).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe('invalid_json');
    }
  });

  it('invalid UTF-8: 400', async () => {
    const bytes = Buffer.concat([Buffer.from('{"boardId":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    const res = await raw(bytes);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_json');
  });

  it('a content type other than JSON: 415', async () => {
    const body = JSON.stringify(ticketBody(ws));
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await raw(body, type);
      expect(res.status, type).toBe(415);
      expect(res.body.code).toBe('unsupported_media_type');
    }
    const none = await api('POST', '/tickets', { key, rawBody: body });
    expect([400, 415]).toContain(none.status);
  });

  it('a body over 1 MiB: 413, with or without Content-Length', async () => {
    const big = JSON.stringify({ ...ticketBody(ws), description: 'x'.repeat(1024 * 1024) });
    const declared = await api('POST', '/tickets', { key, rawBody: big, headers: { 'content-type': 'application/json', 'content-length': String(big.length) } });
    expect(declared.status).toBe(413);
    expect(declared.body.code).toBe('payload_too_large');
    const counted = await raw(big);
    expect(counted.status).toBe(413);
    expect(counted.body.code).toBe('payload_too_large');
    expect(await prisma.ticket.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
  });
});

describe('POST /tickets: scopes and roles', () => {
  let ws: Ws;
  beforeAll(async () => {
    ws = await createTestWorkspace();
  });

  it('403 insufficient_scope with WWW-Authenticate for a key without tickets:write', async () => {
    const key = await ws.key({ scopes: ['tickets:read', 'boards:read'] });
    const res = await api('POST', '/tickets', { key: key.value, body: ticketBody(ws) });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="tickets:write"');
  });

  it('403 for reading tickets without a tickets scope', async () => {
    const key = await ws.key({ scopes: ['boards:read'] });
    for (const path of ['/tickets', '/tickets/1', '/tickets/1/comments']) {
      const res = await api('GET', path, { key: key.value });
      expect(res.status, path).toBe(403);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="tickets:read tickets:write"');
    }
  });

  it('401 without a key', async () => {
    const res = await api('POST', '/tickets', { body: ticketBody(ws) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('403 forbidden when the key’s role may not change tickets, as for a person with that role', async () => {
    const key = await ws.key({ scopes: ['tickets:read', 'tickets:write'], role: ws.roles.viewer.id });
    const res = await api('POST', '/tickets', { key: key.value, body: ticketBody(ws) });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
    expect((await api('GET', '/tickets', { key: key.value })).status).toBe(200);
  });
});

describe('POST /tickets fails as a whole', () => {
  it('leaves no ticket, history, notification or event when the outbox write fails inside the transaction', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['tickets:write'] });
    const name = `fail_events_${ws.workspace.id}`;
    // A real failure of the database after the ticket, its history and its notifications were written.
    await prisma.$executeRawUnsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$`);
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER ${name} BEFORE INSERT ON "Event" FOR EACH ROW WHEN (NEW."workspaceId" = ${ws.workspace.id}) EXECUTE FUNCTION ${name}()`,
    );
    try {
      const res = await api('POST', '/tickets', { key: key.value, body: ticketBody(ws) });
      expect(res.status).toBe(500);
      expect(res.body.code).toBe('internal_error');
      expect(res.text).not.toMatch(/forced failure|\.ts:\d+/);
    } finally {
      await prisma.$executeRawUnsafe(`DROP TRIGGER ${name} ON "Event"`);
      await prisma.$executeRawUnsafe(`DROP FUNCTION ${name}()`);
    }
    expect(await prisma.ticket.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
    expect(await prisma.ticketHistoryEntry.count({ where: { actorId: key.record.serviceUserId } })).toBe(0);
    expect(await prisma.notification.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
    expect(await prisma.event.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);
    // The same request succeeds once the database accepts events again.
    const ticket = await createTicket(ws, key.value);
    expect(await eventsOf(ticket.id)).toHaveLength(1);
  });
});

describe('POST /tickets with Idempotency-Key', () => {
  let ws: Ws;
  let key: Awaited<ReturnType<Ws['key']>>;
  beforeAll(async () => {
    ws = await createTestWorkspace();
    key = await ws.key({ scopes: ['tickets:write', 'tickets:read'] });
  });
  const post = (idempotencyKey: string, overrides: Record<string, unknown> = {}) =>
    api('POST', '/tickets', { key: key.value, body: ticketBody(ws, overrides), headers: { 'Idempotency-Key': idempotencyKey } });
  const recordOf = (idempotencyKey: string) => prisma.idempotencyRecord.findUnique({ where: { apiKeyId_key: { apiKeyId: key.record.id, key: idempotencyKey } } });

  it('stores exactly the answer with the ticket: the replay deep-equals the first answer, the event carries the same representation', async () => {
    const idempotencyKey = `k-${randomSuffix()}`;
    const subject = `Stored answer ${randomSuffix()}`;
    const first = await post(idempotencyKey, { subject });
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const record = await recordOf(idempotencyKey);
    expect(record).toMatchObject({ state: 'completed', responseStatus: 201, completedAt: expect.any(Date) });
    expect(record!.responseBody).toEqual(first.body);
    expect((await eventsOf(first.body.id))[0].payload).toMatchObject({ data: first.body });

    const replay = await post(idempotencyKey, { subject });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await prisma.ticket.count({ where: { workspaceId: ws.workspace.id, subject } })).toBe(1);
  });

  it('writes the ticket and its completed record in one statement: when completing fails, no ticket is left and the key can be retried', async () => {
    const idempotencyKey = `k-${randomSuffix()}`;
    const subject = `Atomic ${randomSuffix()}`;
    const name = `fail_idempotency_${ws.workspace.id}`;
    // A real failure of the database while the record is being completed, after the ticket row was written.
    await prisma.$executeRawUnsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$`);
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER ${name} BEFORE UPDATE ON "IdempotencyRecord" FOR EACH ROW WHEN (NEW."apiKeyId" = ${key.record.id} AND NEW."state" = 'completed') EXECUTE FUNCTION ${name}()`,
    );
    try {
      const failed = await post(idempotencyKey, { subject });
      expect(failed.status).toBe(500);
      expect(failed.body.code).toBe('internal_error');
    } finally {
      await prisma.$executeRawUnsafe(`DROP TRIGGER ${name} ON "IdempotencyRecord"`);
      await prisma.$executeRawUnsafe(`DROP FUNCTION ${name}()`);
    }
    expect(await prisma.ticket.count({ where: { workspaceId: ws.workspace.id, subject } })).toBe(0);
    expect(await recordOf(idempotencyKey)).toBeNull();

    const retried = await post(idempotencyKey, { subject });
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await prisma.ticket.count({ where: { workspaceId: ws.workspace.id, subject } })).toBe(1);
    expect((await recordOf(idempotencyKey))!.responseBody).toEqual(retried.body);
  });

  it('takes ids from the one sequence in order, keyed or not, and names them in the notice', async () => {
    const a = await createTicket(ws, key.value);
    const b = (await post(`k-${randomSuffix()}`)).body;
    const c = await createTicket(ws, key.value);
    expect(a.id).toBeLessThan(b.id);
    expect(b.id).toBeLessThan(c.id);
    const [notice] = await prisma.notification.findMany({ where: { workspaceId: ws.workspace.id, data: { path: ['ticketId'], equals: b.id } } });
    expect(notice).toMatchObject({ title: `New ticket #${b.id}: ${b.subject}`, link: `/tickets/${b.id}` });
    expect(notice.body).toMatch(new RegExp(`created ticket #${b.id} on Support \\(through the API\\)$`));
  });
});
