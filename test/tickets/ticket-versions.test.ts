// Ticket versions: `version` in every ticket answer and event, `ETag: "<version>"` on ticket
// answers, and PATCH with If-Match (RFC 9110): a stale version is a 412 that changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { createTicket, eventsOf, gql, supportBoard, type Ws } from './helpers.ts';

describe('ticket versions', () => {
  let ws: Ws;
  let key: string;
  beforeAll(async () => {
    ws = await createTestWorkspace('Ticket versions');
    key = (await ws.key({ name: 'Versions', scopes: ['tickets:read', 'tickets:write'] })).value;
  });

  const patch = (id: number, body: unknown, ifMatch?: string) => api('PATCH', `/tickets/${id}`, { key, body, headers: ifMatch === undefined ? {} : { 'if-match': ifMatch } });

  it('starts at 1 and grows by one with each change (update, state change, comment), in answers, ETags and events', async () => {
    const created = await api('POST', '/tickets', { key, body: { boardId: supportBoard(ws).board.id, subject: 'Versioned', requesterEmail: 'v@example.com', fields: [{ fieldId: supportBoard(ws).product, value: 'Web' }] } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.version).toBe(1);
    expect(created.headers.get('etag')).toBe('"1"');
    const id = created.body.id;
    const changed = await patch(id, { subject: 'Versioned, changed', state: supportBoard(ws).state('In progress').id });
    expect([changed.body.version, changed.headers.get('etag')]).toEqual([2, '"2"']);
    // Nothing to change: same version.
    expect((await patch(id, { subject: 'Versioned, changed' })).body.version).toBe(2);
    expect((await api('POST', `/tickets/${id}/comments`, { key, body: { body: 'A comment' } })).status).toBe(201);
    const got = await api('GET', `/tickets/${id}`, { key });
    expect([got.body.version, got.headers.get('etag')]).toEqual([3, '"3"']);
    const listed = await api('GET', `/tickets?limit=100`, { key });
    expect(listed.body.data.find((t: any) => t.id === id).version).toBe(3);
    // One request's update and state change are one change: both events carry version 2.
    expect((await eventsOf(id)).map((e) => [e.type, (e.payload as any).data.version])).toEqual([
      ['ticket.created', 1],
      ['ticket.updated', 2],
      ['ticket.state_changed', 2],
      ['ticket.comment_added', 3],
    ]);
    // The idempotent replay of a create carries the ETag too.
    const body = { boardId: supportBoard(ws).board.id, subject: 'Replayed', requesterEmail: 'v@example.com', fields: [{ fieldId: supportBoard(ws).product, value: 'Web' }] };
    const first = await api('POST', '/tickets', { key, body, headers: { 'idempotency-key': `versions-${id}` } });
    const replay = await api('POST', '/tickets', { key, body, headers: { 'idempotency-key': `versions-${id}` } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect([first.headers.get('etag'), replay.headers.get('etag')]).toEqual(['"1"', '"1"']);
  });

  it('If-Match with the current version changes the ticket; with a stale one answers 412 and changes nothing', async () => {
    const t = await createTicket(ws, key);
    const ok = await patch(t.id, { priority: 'low' }, '"1"');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.headers.get('etag')).toBe('"2"');
    const stale = await patch(t.id, { priority: 'urgent' }, '"1"');
    expect(stale.status, stale.text).toBe(412);
    expect(stale.headers.get('content-type')).toBe('application/problem+json');
    expect(stale.body).toMatchObject({ code: 'precondition_failed', status: 412, type: 'urn:ticketing:problem:precondition-failed' });
    expect(stale.body.detail).toContain('version 2');
    expect((await api('GET', `/tickets/${t.id}`, { key })).body).toMatchObject({ priority: 'low', version: 2 });
    expect((await eventsOf(t.id)).map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated']);
    // A stale version fails even when the change would change nothing.
    expect((await patch(t.id, { priority: 'low' }, '"1"')).status).toBe(412);
    // A list matches any of its tags; `*` any version; a weak tag never (strong comparison).
    expect((await patch(t.id, { priority: 'normal' }, '"7", "2"')).body.version).toBe(3);
    expect((await patch(t.id, { priority: 'high' }, '*')).body.version).toBe(4);
    expect((await patch(t.id, { priority: 'low' }, 'W/"4"')).status).toBe(412);
    // Without If-Match, as before: the change is made whatever the version.
    expect((await patch(t.id, { priority: 'low' })).body.version).toBe(5);
  });

  it('refuses a malformed If-Match with 400 invalid_header before anything runs', async () => {
    const t = await createTicket(ws, key);
    for (const header of ['2', '"2', 'abc, "2"', '"a"b"', `"1"${', "1"'.repeat(25)}`, `"${'9'.repeat(2000)}"`]) {
      const res = await patch(t.id, { priority: 'low' }, header);
      expect(res.status, `${header.slice(0, 40)}: ${res.text}`).toBe(400);
      expect(res.body.code).toBe('invalid_header');
    }
    expect((await api('GET', `/tickets/${t.id}`, { key })).body.version).toBe(1);
  });

  it('GET with If-Match answers the ticket while it is at that version, 412 once it changed, 400 for a malformed header', async () => {
    const t = await createTicket(ws, key);
    const get = (ifMatch: string) => api('GET', `/tickets/${t.id}`, { key, headers: { 'if-match': ifMatch } });
    const current = await get('"1"');
    expect([current.status, current.body.version, current.headers.get('etag')]).toEqual([200, 1, '"1"']);
    expect((await get('"7", "1"')).status).toBe(200);
    expect((await get('*')).status).toBe(200);
    expect((await patch(t.id, { priority: 'low' })).body.version).toBe(2);
    const stale = await get('"1"');
    expect([stale.status, stale.body.code]).toEqual([412, 'precondition_failed']);
    expect(stale.text).not.toContain(t.subject);
    expect((await get('W/"2"')).status, 'a weak tag never matches').toBe(412);
    expect((await get('"2"')).status).toBe(200);
    const malformed = await get('2');
    expect([malformed.status, malformed.body.code]).toEqual([400, 'invalid_header']);
    // Another workspace's ticket stays a 404 whatever the header says.
    const other = await createTestWorkspace('Ticket versions, other');
    const otherKey = (await other.key({ name: 'Other', scopes: ['tickets:read'] })).value;
    expect((await api('GET', `/tickets/${t.id}`, { key: otherKey, headers: { 'if-match': '"2"' } })).status).toBe(404);
  });

  it('of two concurrent changes naming the same version, exactly one wins', async () => {
    const t = await createTicket(ws, key);
    const results = await Promise.all(['low', 'urgent', 'normal'].map((priority) => patch(t.id, { priority }, '"1"')));
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412]);
    expect((await api('GET', `/tickets/${t.id}`, { key })).body.version).toBe(2);
    expect((await eventsOf(t.id)).map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated']);
  });

  it('GraphQL: version on Ticket, ifVersion on updateTicket with the same code', async () => {
    const t = await createTicket(ws, key);
    const mutation = 'mutation($id: Int!, $v: [Int!]) { updateTicket(id: $id, input: { priority: "low" }, ifVersion: $v) { version } }';
    expect((await gql(key, mutation, { id: t.id, v: [1] })).data.updateTicket.version).toBe(2);
    const stale = await gql(key, mutation, { id: t.id, v: [1] });
    expect(stale.errors?.[0]?.extensions.code).toBe('precondition_failed');
    const tooMany = await gql(key, mutation, { id: t.id, v: Array.from({ length: 21 }, (_, i) => i + 1) });
    expect(tooMany.errors?.[0]?.extensions.code).toBe('validation_failed');
  });
});
