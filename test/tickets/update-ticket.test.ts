import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { prisma } from '../../src/db/db.ts';
import { sessionService } from '../../src/auth/session.service.ts';
import { createTicket, eventsOf, expect422, gql, historyOf, supportBoard, type Ws } from './helpers.ts';

describe('PATCH /tickets/{id}', () => {
  let ws: Ws;
  let key: Awaited<ReturnType<Ws['key']>>;
  const actor = () => ({ id: key.record.serviceUserId, name: 'Sync (API key)' });
  beforeAll(async () => {
    ws = await createTestWorkspace();
    key = await ws.key({ name: 'Sync', scopes: ['tickets:read', 'tickets:write'], role: ws.roles.agent.id });
  });

  it('a state change writes ticket.state_changed with the old and new state names', async () => {
    const s = supportBoard(ws);
    const ticket = await createTicket(ws, key.value);
    const res = await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { state: s.state('In progress').id } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...ticket, state: { id: s.state('In progress').id, name: 'In progress', category: 'open' }, version: 2, updatedAt: expect.any(String) });
    expect(res.body.updatedAt >= ticket.updatedAt).toBe(true);

    const events = await eventsOf(ticket.id);
    expect(events.map((e) => e.type)).toEqual(['ticket.created', 'ticket.state_changed']);
    expect(events[1].actorId).toBe(key.record.serviceUserId);
    expect(events[1].payload).toEqual({
      id: events[1].id,
      type: 'ticket.state_changed',
      occurredAt: events[1].occurredAt.toISOString(),
      workspace: ws.workspace.domain,
      actor: actor(),
      changes: { field: 'state', oldValue: 'New', newValue: 'In progress' },
      data: res.body,
    });
    const history = await historyOf(ticket.id);
    expect(history.map((h) => [h.action, h.actorId, h.channel])).toEqual([
      ['created', key.record.serviceUserId, 'api'],
      ['state_changed', key.record.serviceUserId, 'api'],
    ]);
    expect(history[1].changes).toEqual([{ field: 'state', oldValue: 'New', newValue: 'In progress' }]);

    // By name too; moving to the current state changes nothing.
    const byName = await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { state: 'Resolved' } });
    expect(byName.body.state.name).toBe('Resolved');
    const same = await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { state: s.state('Resolved').id } });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(byName.body);
    expect((await eventsOf(ticket.id)).map((e) => e.type)).toEqual(['ticket.created', 'ticket.state_changed', 'ticket.state_changed']);
  });

  it('other changes write one ticket.updated with the list of changes', async () => {
    const s = supportBoard(ws);
    const ticket = await createTicket(ws, key.value);
    const res = await api('PATCH', `/tickets/${ticket.id}`, {
      key: key.value,
      body: {
        subject: 'Checkout fails on Safari',
        priority: 'urgent',
        description: ticket.description,
        fields: [{ fieldId: s.orderNumber, value: 'A-17' }, { fieldId: s.product, value: 'Mobile' }],
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      subject: 'Checkout fails on Safari',
      priority: 'urgent',
      description: ticket.description,
      fields: [
        { fieldId: s.product, value: 'Mobile' },
        { fieldId: s.orderNumber, value: 'A-17' },
      ],
    });
    const changes = [
      { field: 'subject', oldValue: 'Checkout fails', newValue: 'Checkout fails on Safari' },
      { field: 'priority', oldValue: 'high', newValue: 'urgent' },
      { field: `fields.${s.product}`, oldValue: 'Web', newValue: 'Mobile' },
      { field: `fields.${s.orderNumber}`, oldValue: null, newValue: 'A-17' },
    ];
    const events = await eventsOf(ticket.id);
    expect(events.map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated']);
    expect(events[1].payload).toMatchObject({ type: 'ticket.updated', actor: actor(), changes, data: res.body });
    expect((await historyOf(ticket.id))[1]).toMatchObject({ action: 'updated', changes });

    // Clearing an optional field; an unchanged PATCH records nothing.
    const cleared = await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { fields: [{ fieldId: s.orderNumber, value: null }] } });
    expect(cleared.body.fields).toEqual([{ fieldId: s.product, value: 'Mobile' }]);
    const noop = await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { subject: 'Checkout fails on Safari', priority: 'urgent' } });
    expect(noop.status).toBe(200);
    expect(noop.body).toEqual(cleared.body);
    expect((await eventsOf(ticket.id)).map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated', 'ticket.updated']);
  });

  it('a PATCH changing the state and other fields writes both events, both with the final ticket', async () => {
    const ticket = await createTicket(ws, key.value);
    const res = await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { state: 'Waiting on customer', priority: 'low' } });
    expect(res.status).toBe(200);
    const events = await eventsOf(ticket.id);
    expect(events.map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated', 'ticket.state_changed']);
    expect(events[1].payload).toMatchObject({ changes: [{ field: 'priority', oldValue: 'high', newValue: 'low' }], data: res.body });
    expect(events[2].payload).toMatchObject({ changes: { field: 'state', oldValue: 'New', newValue: 'Waiting on customer' }, data: res.body });
    expect((await api('GET', `/tickets/${ticket.id}`, { key: key.value })).body).toEqual(res.body);
  });

  it('validation: 422 with paths, nothing changed', async () => {
    const s = supportBoard(ws);
    const ticket = await createTicket(ws, key.value);
    const patch = (body: unknown) => api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body });
    expect422(await patch({}), ['']);
    expect422(await patch({ channel: 'web' }), ['/channel']);
    expect422(await patch({ state: 'Nowhere' }), ['/state']);
    expect422(await patch({ state: 'st_00000000000000000000000000', subject: 'ok' }), ['/state']);
    expect422(await patch({ priority: 'meh' }), ['/priority']);
    expect422(await patch({ subject: null }), ['/subject']);
    expect422(await patch({ subject: 'x'.repeat(251) }), ['/subject']);
    expect422(await patch({ fields: [{ fieldId: s.product, value: null }] }), ['/fields/0/value']);
    expect422(await patch({ fields: [{ fieldId: s.affectedUsers, value: 'many' }, { fieldId: 'fld_x', value: 1 }] }), ['/fields/0/value', '/fields/1/fieldId']);
    expect((await api('GET', `/tickets/${ticket.id}`, { key: key.value })).body).toEqual(ticket);
    expect((await eventsOf(ticket.id)).map((e) => e.type)).toEqual(['ticket.created']);
  });

  it('a state of another board is refused', async () => {
    const ticket = await createTicket(ws, key.value);
    const billingState = ws.boards.find((b) => b.name === 'Billing')!.states[1].id;
    expect422(await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { state: billingState } }), ['/state']);
  });

  it('writes nothing when an event fails to be written half-way', async () => {
    const ticket = await createTicket(ws, key.value);
    const name = `fail_state_events_${ws.workspace.id}`;
    await prisma.$executeRawUnsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$`);
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER ${name} BEFORE INSERT ON "Event" FOR EACH ROW WHEN (NEW."workspaceId" = ${ws.workspace.id} AND NEW.type = 'ticket.state_changed') EXECUTE FUNCTION ${name}()`,
    );
    try {
      // The update, its history and the ticket.updated event are written before the failing one.
      const res = await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { subject: 'Changed', state: 'Closed' } });
      expect(res.status).toBe(500);
      expect(res.body.code).toBe('internal_error');
    } finally {
      await prisma.$executeRawUnsafe(`DROP TRIGGER ${name} ON "Event"`);
      await prisma.$executeRawUnsafe(`DROP FUNCTION ${name}()`);
    }
    expect((await api('GET', `/tickets/${ticket.id}`, { key: key.value })).body).toEqual(ticket);
    expect((await eventsOf(ticket.id)).map((e) => e.type)).toEqual(['ticket.created']);
    expect((await historyOf(ticket.id)).map((h) => h.action)).toEqual(['created']);
  });
});

describe('concurrent changes', () => {
  it('parallel PATCHes of different fields keep every change, each recorded once', async () => {
    const ws = await createTestWorkspace();
    const key = (await ws.key()).value;
    const s = supportBoard(ws);
    const ticket = await createTicket(ws, key);
    const results = await Promise.all([
      api('PATCH', `/tickets/${ticket.id}`, { key, body: { fields: [{ fieldId: s.orderNumber, value: 'A-1' }] } }),
      api('PATCH', `/tickets/${ticket.id}`, { key, body: { fields: [{ fieldId: s.affectedUsers, value: 3 }] } }),
      api('PATCH', `/tickets/${ticket.id}`, { key, body: { state: 'In progress' } }),
      ...Array.from({ length: 5 }, (_, i) => api('POST', `/tickets/${ticket.id}/comments`, { key, body: { body: `c${i}` } })),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 201, 201, 201, 201, 201]);
    const final = (await api('GET', `/tickets/${ticket.id}`, { key })).body;
    expect(final.fields).toEqual([
      { fieldId: s.product, value: 'Web' },
      { fieldId: s.orderNumber, value: 'A-1' },
      { fieldId: s.affectedUsers, value: 3 },
    ]);
    expect(final.state.name).toBe('In progress');
    const types = (await eventsOf(ticket.id)).map((e) => e.type).sort();
    expect(types).toEqual(['ticket.comment_added', 'ticket.comment_added', 'ticket.comment_added', 'ticket.comment_added', 'ticket.comment_added', 'ticket.created', 'ticket.state_changed', 'ticket.updated', 'ticket.updated']);
  });
});

describe('comments', () => {
  let ws: Ws;
  let key: Awaited<ReturnType<Ws['key']>>;
  beforeAll(async () => {
    ws = await createTestWorkspace();
    key = await ws.key({ name: 'Helpdesk', scopes: ['tickets:read', 'tickets:write'] });
  });

  it('POST answers 201 with the comment, writes history and ticket.comment_added, and moves updatedAt', async () => {
    const ticket = await createTicket(ws, key.value);
    const res = await api('POST', `/tickets/${ticket.id}/comments`, { key: key.value, body: { body: '  We are on it.  ' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      ticketId: ticket.id,
      body: 'We are on it.',
      public: true,
      channel: 'api',
      author: { id: key.record.serviceUserId, name: 'Helpdesk (API key)' },
      createdAt: expect.any(String),
    });
    const after = (await api('GET', `/tickets/${ticket.id}`, { key: key.value })).body;
    expect(after.updatedAt).toBe(res.body.createdAt);
    const events = await eventsOf(ticket.id);
    expect(events.map((e) => e.type)).toEqual(['ticket.created', 'ticket.comment_added']);
    expect(events[1].payload).toMatchObject({ actor: { id: key.record.serviceUserId }, changes: null, data: after, comment: res.body });
    expect((await historyOf(ticket.id))[1]).toMatchObject({
      action: 'comment_added',
      actorId: key.record.serviceUserId,
      channel: 'api',
      changes: [{ field: 'comment', oldValue: null, newValue: res.body.id }],
    });
    // Comments count as changes for updatedSince.
    const since = await api('GET', `/tickets?updatedSince=${encodeURIComponent(after.updatedAt)}`, { key: key.value });
    expect(since.body.data.map((t: any) => t.id)).toContain(ticket.id);
  });

  it('GET pages comments oldest first; internal notes are marked', async () => {
    const ticket = await createTicket(ws, key.value);
    const bodies = ['one', 'two', 'three'];
    for (const body of bodies) {
      expect((await api('POST', `/tickets/${ticket.id}/comments`, { key: key.value, body: { body, public: body !== 'two' } })).status).toBe(201);
    }
    const first = await api('GET', `/tickets/${ticket.id}/comments?limit=2`, { key: key.value });
    expect(first.status).toBe(200);
    expect(first.body.data.map((c: any) => [c.body, c.public])).toEqual([
      ['one', true],
      ['two', false],
    ]);
    expect(first.headers.get('link')).toBe(`</public/v1/tickets/${ticket.id}/comments?limit=2&cursor=${first.body.nextCursor}>; rel="next"`);
    const second = await api('GET', `/tickets/${ticket.id}/comments?limit=2&cursor=${first.body.nextCursor}`, { key: key.value });
    expect(second.body).toEqual({ data: [expect.objectContaining({ body: 'three' })], nextCursor: null });
  });

  it('validation and missing tickets', async () => {
    const ticket = await createTicket(ws, key.value);
    const post = (body: unknown) => api('POST', `/tickets/${ticket.id}/comments`, { key: key.value, body });
    expect422(await post({}), ['/body']);
    expect422(await post({ body: '   ' }), ['/body']);
    expect422(await post({ body: 'x'.repeat(65_537) }), ['/body']);
    expect422(await post({ body: 'ok', public: 'yes' }), ['/public']);
    expect422(await post({ body: 'ok', author: 1 }), ['/author']);
    expect422(await post({ body: 'a\u0000' }), ['/body']);
    expect((await api('POST', '/tickets/2147483647/comments', { key: key.value, body: { body: 'hi' } })).status).toBe(404);
    expect((await api('GET', '/tickets/2147483647/comments', { key: key.value })).status).toBe(404);
    const bad = await api('POST', `/tickets/${ticket.id}/comments`, { key: key.value, rawBody: 'body=hi', headers: { 'content-type': 'text/plain' } });
    expect(bad.status).toBe(415);
    expect((await eventsOf(ticket.id)).map((e) => e.type)).toEqual(['ticket.created']);
  });

  it('a key without tickets:write cannot comment', async () => {
    const reader = await ws.key({ scopes: ['tickets:read'] });
    const ticket = await createTicket(ws, key.value);
    const res = await api('POST', `/tickets/${ticket.id}/comments`, { key: reader.value, body: { body: 'hi' } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="tickets:write"');
    expect((await api('GET', `/tickets/${ticket.id}/comments`, { key: reader.value })).status).toBe(200);
  });
});

describe('GraphQL: history, errors and the activity report', () => {
  it('ticketHistory lists the changes with their actor and channel', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ name: 'Bot', scopes: ['tickets:read', 'tickets:write'] });
    const ticket = await createTicket(ws, key.value);
    await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { state: 'Closed' } });
    const r = await gql(
      key.value,
      'query($id: Int!) { ticketHistory(ticketId: $id, first: 10) { edges { node { action channel actor { id name } changes { field oldValue newValue } } } pageInfo { hasNextPage } } }',
      { id: ticket.id },
    );
    expect(r.errors).toBeUndefined();
    const actor = { id: key.record.serviceUserId, name: 'Bot (API key)' };
    expect(r.data.ticketHistory.edges.map((e: any) => e.node)).toEqual([
      { action: 'created', channel: 'api', actor, changes: [] },
      { action: 'state_changed', channel: 'api', actor, changes: [{ field: 'state', oldValue: 'New', newValue: 'Closed' }] },
    ]);
  });

  it('mutations report validation errors with the same code and paths as REST', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key();
    const s = supportBoard(ws);
    const r = await gql(key.value, 'mutation($input: CreateTicketInput!) { createTicket(input: $input) { id } }', {
      input: { boardId: s.board.id, subject: 'x', requesterEmail: 'nope', priority: 'zzz' },
    });
    expect(r.errors?.[0].extensions.code).toBe('validation_failed');
    expect(r.errors?.[0].extensions.errors?.map((e) => e.path)).toEqual(['/requesterEmail']);
    const p = await gql(key.value, 'query { tickets(first: 500) { edges { node { id } } } }');
    expect(p.errors?.[0].extensions.code).toBe('validation_failed');
    const c = await gql(key.value, 'query { tickets(after: "garbage") { edges { node { id } } } }');
    expect(c.errors?.[0].extensions.code).toBe('validation_failed');
  });

  it('people act through the web channel; the report separates them from API keys', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ name: 'Importer' });
    const start = new Date(Date.now() - 60_000).toISOString();
    const { principal, cookie } = await sessionService.signIn({ email: ws.admin.email!, password: 'correct horse battery staple' });
    const headers = { cookie: cookie.split(';')[0], 'x-csrf-token': principal.csrfToken };
    const s = supportBoard(ws);
    const created = await api('POST', '/graphql', {
      headers,
      body: {
        query: `mutation($input: CreateTicketInput!) { createTicket(input: $input) { id channel createdBy { id name } } }`,
        variables: { input: { boardId: s.board.id, subject: 'Phoned in', requesterEmail: 'caller@example.com', fields: [{ fieldId: s.product, value: 'API' }] } },
      },
    });
    expect(created.body.errors).toBeUndefined();
    const ticket = created.body.data.createTicket;
    expect(ticket).toMatchObject({ channel: 'web', createdBy: { id: ws.admin.id, name: 'Test Admin' } });
    expect((await historyOf(ticket.id))[0]).toMatchObject({ actorId: ws.admin.id, channel: 'web' });
    // The only administrator acted; nobody else to tell.
    expect(await prisma.notification.count({ where: { workspaceId: ws.workspace.id } })).toBe(0);

    await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { priority: 'urgent' } });
    const r = await gql(key.value, 'query($from: DateTime!, $to: DateTime!) { ticketActivityReport(from: $from, to: $to) { actor { id } actorKind channel ticketsCreated ticketsChanged } }', {
      from: start,
      to: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(r.data.ticketActivityReport).toEqual([
      { actor: { id: ws.admin.id }, actorKind: 'human', channel: 'web', ticketsCreated: 1, ticketsChanged: 0 },
      { actor: { id: key.record.serviceUserId }, actorKind: 'service', channel: 'api', ticketsCreated: 0, ticketsChanged: 1 },
    ]);
  });

  it('ticketActivityReport counts tickets created and changed per actor and channel', async () => {
    const ws = await createTestWorkspace();
    const a = await ws.key({ name: 'A' });
    const b = await ws.key({ name: 'B' });
    const start = new Date(Date.now() - 60_000).toISOString();
    const t1 = await createTicket(ws, a.value);
    const t2 = await createTicket(ws, a.value);
    await api('PATCH', `/tickets/${t1.id}`, { key: b.value, body: { state: 'Closed', subject: 'Renamed' } });
    await api('POST', `/tickets/${t1.id}/comments`, { key: b.value, body: { body: 'done' } });
    await api('POST', `/tickets/${t2.id}/comments`, { key: b.value, body: { body: 'also' } });
    const end = new Date(Date.now() + 60_000).toISOString();

    const query = 'query($from: DateTime!, $to: DateTime!) { ticketActivityReport(from: $from, to: $to) { actor { id name } actorKind channel ticketsCreated ticketsChanged changes } }';
    const r = await gql(a.value, query, { from: start, to: end });
    expect(r.errors).toBeUndefined();
    expect(r.data.ticketActivityReport).toEqual([
      { actor: { id: a.record.serviceUserId, name: 'A (API key)' }, actorKind: 'service', channel: 'api', ticketsCreated: 2, ticketsChanged: 0, changes: 0 },
      // updated + state_changed on t1, a comment on each ticket.
      { actor: { id: b.record.serviceUserId, name: 'B (API key)' }, actorKind: 'service', channel: 'api', ticketsCreated: 0, ticketsChanged: 2, changes: 4 },
    ]);
    const empty = await gql(a.value, query, { from: end, to: new Date(Date.now() + 120_000).toISOString() });
    expect(empty.data.ticketActivityReport).toEqual([]);
    const backwards = await gql(a.value, query, { from: end, to: start });
    expect(backwards.errors?.[0].extensions.code).toBe('validation_failed');
    const ancient = await gql(a.value, query, { from: '-271821-04-20T00:00:00.000Z', to: end });
    expect(ancient.errors?.[0].extensions).toMatchObject({ code: 'validation_failed', errors: [{ path: '/from' }] });
  });
});
