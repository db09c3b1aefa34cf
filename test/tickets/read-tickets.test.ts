import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { billingBoard, createTicket, expect422, gql, supportBoard, type Ws } from './helpers.ts';
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';

/** Follows nextCursor to the end; checks Link against nextCursor on every page. */
async function allPages(key: string, path: string) {
  const pages: any[][] = [];
  let next: string | null = path;
  while (next) {
    const res = await api('GET', next, { key });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'nextCursor']);
    pages.push(res.body.data);
    if (res.body.nextCursor) {
      const link = res.headers.get('link')!;
      const m = /^<\/public\/v1(\/tickets[^>]*)>; rel="next"$/.exec(link);
      expect(m, link).not.toBeNull();
      expect(new URL(`http://x${m![1]}`).searchParams.get('cursor')).toBe(res.body.nextCursor);
      next = m![1];
    } else {
      expect(res.headers.get('link')).toBeNull();
      next = null;
    }
  }
  return pages;
}

describe('GET /tickets', () => {
  let ws: Ws;
  let key: string;
  let created: any[];
  beforeAll(async () => {
    ws = await createTestWorkspace();
    key = (await ws.key({ scopes: ['tickets:read', 'tickets:write'] })).value;
    const b = billingBoard(ws);
    created = [];
    for (let i = 0; i < 5; i++) created.push(await createTicket(ws, key, { subject: `Support ${i}` }));
    for (let i = 0; i < 2; i++) {
      created.push(
        await createTicket(ws, key, { boardId: b.board.id, priority: 'normal', subject: `Billing ${i}`, fields: [{ fieldId: b.invoice, value: `INV-${i}` }] }),
      );
    }
    const s = supportBoard(ws);
    const moved = await api('PATCH', `/tickets/${created[1].id}`, { key, body: { state: s.state('In progress').id } });
    expect(moved.status).toBe(200);
    created[1] = moved.body;
  });

  const newestFirst = (list: any[]) => [...list].sort((a, b) => b.id - a.id);

  it('pages newest first with limit, nextCursor and Link, never skipping or repeating', async () => {
    const pages = await allPages(key, '/tickets?limit=3');
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(newestFirst(created));
  });

  it('a cursor stays valid when tickets are created meanwhile', async () => {
    const first = await api('GET', '/tickets?limit=4', { key });
    const extra = await createTicket(ws, key, { subject: 'Late' });
    const rest = await api('GET', `/tickets?limit=100&cursor=${first.body.nextCursor}`, { key });
    const seen = [...first.body.data, ...rest.body.data].map((t: any) => t.id);
    expect(seen).toEqual(newestFirst(created).map((t) => t.id));
    expect(seen).not.toContain(extra.id);
    created.push(extra);
  });

  it('defaults to 50 per page', async () => {
    const res = await api('GET', '/tickets', { key });
    expect(res.body.data).toHaveLength(created.length);
    expect(res.body.nextCursor).toBeNull();
  });

  it('filters by board, by state id or name, and by updatedSince; filters combine', async () => {
    const s = supportBoard(ws);
    const b = billingBoard(ws);
    const ids = async (query: string) => (await allPages(key, `/tickets?${query}`)).flat().map((t) => t.id);
    const expected = (pred: (t: any) => boolean) => newestFirst(created.filter(pred)).map((t) => t.id);

    expect(await ids(`boardId=${b.board.id}`)).toEqual(expected((t) => t.boardId === b.board.id));
    expect(await ids(`state=${s.state('In progress').id}`)).toEqual([created[1].id]);
    expect(await ids(`state=${encodeURIComponent('In progress')}`)).toEqual([created[1].id]);
    expect(await ids('state=Open')).toEqual(expected((t) => t.boardId === b.board.id));
    expect(await ids(`state=New&boardId=${s.board.id}&limit=2`)).toEqual(expected((t) => t.boardId === s.board.id && t.state.name === 'New'));
    expect(await ids(`state=Open&boardId=${s.board.id}`)).toEqual([]);
    expect(await ids('state=NoSuchState')).toEqual([]);

    const since = created[3].updatedAt;
    expect(await ids(`updatedSince=${encodeURIComponent(since)}`)).toEqual(expected((t) => t.updatedAt >= since));
    // The state change moved ticket 1 after the later creations.
    expect(await ids(`updatedSince=${encodeURIComponent(since)}`)).toContain(created[1].id);
    expect(await ids('updatedSince=2999-01-01T00:00:00%2B02:00')).toEqual([]);
  });

  it('state by name matches that name on every board of the workspace, and no state of another workspace', async () => {
    // A workspace of its own: a "Closed" state added to Billing as well, so the name is on two boards.
    const own = await createTestWorkspace();
    const ownKey = (await own.key({ scopes: ['tickets:read', 'tickets:write'] })).value;
    const b = billingBoard(own);
    const billingClosed = await prisma.boardState.create({ data: { id: newId('st'), boardId: b.board.id, name: 'Closed', category: 'closed', position: 9 } });
    const supportClosed = supportBoard(own).state('Closed');
    const closed: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = await createTicket(own, ownKey, { subject: `Support ${i}` });
      await createTicket(own, ownKey, { subject: `Open ${i}` });
      const u = await createTicket(own, ownKey, { boardId: b.board.id, priority: 'normal', subject: `Billing ${i}`, fields: [{ fieldId: b.invoice, value: `INV-${i}` }] });
      expect((await api('PATCH', `/tickets/${t.id}`, { key: ownKey, body: { state: supportClosed.id } })).status).toBe(200);
      expect((await api('PATCH', `/tickets/${u.id}`, { key: ownKey, body: { state: billingClosed.id } })).status).toBe(200);
      closed.push(t.id, u.id);
    }
    const ids = async (query: string) => (await allPages(ownKey, `/tickets?${query}`)).flat().map((t) => t.id);
    const newest = [...closed].sort((x, y) => y - x);
    // Across pages of one and of two: both boards' tickets, newest first.
    expect(await ids('state=Closed&limit=1')).toEqual(newest);
    expect(await ids('state=Closed&limit=2')).toEqual(newest);
    expect(await ids(`state=${billingClosed.id}`)).toEqual(newest.filter((id) => closed.indexOf(id) % 2 === 1));
    expect(await ids(`state=Closed&boardId=${b.board.id}`)).toEqual(newest.filter((id) => closed.indexOf(id) % 2 === 1));

    // The describe's workspace, which has no ticket in a "Closed" state, sees none of these.
    expect(await allPages(key, '/tickets?state=Closed')).toEqual([[]]);
    expect(await allPages(key, `/tickets?state=${billingClosed.id}`)).toEqual([[]]);
  });

  it('422 for query parameters that are not valid', async () => {
    expect422(await api('GET', '/tickets?limit=0', { key }), ['query/limit']);
    expect422(await api('GET', '/tickets?limit=101', { key }), ['query/limit']);
    expect422(await api('GET', '/tickets?limit=ten', { key }), ['query/limit']);
    expect422(await api('GET', '/tickets?cursor=nonsense', { key }), ['query/cursor']);
    expect422(await api('GET', `/tickets?cursor=${Buffer.from('id:99999999999').toString('base64url')}`, { key }), ['query/cursor']);
    expect422(await api('GET', '/tickets?updatedSince=yesterday', { key }), ['query/updatedSince']);
    expect422(await api('GET', '/tickets?boardId=%00', { key }), ['query/boardId']);
    expect422(await api('GET', '/tickets?state=%00', { key }), ['query/state']);
    expect422(await api('GET', '/tickets?bord=1', { key }), ['query/bord']);
  });

  it('GET /tickets/{id}: odd ids answer 404, never 500', async () => {
    for (const id of ['abc', '1e3', '0', '-1', '1.5', '0x10', '99999999999999999999', '2147483648', '%00', '%20', '1%2F2']) {
      for (const suffix of ['', '/comments']) {
        const res = await api('GET', `/tickets/${id}${suffix}`, { key });
        expect(res.status, `${id}${suffix}`).toBe(404);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(res.body.code).toBe('not_found');
      }
      const patch = await api('PATCH', `/tickets/${id}`, { key, body: { subject: 'x' } });
      expect(patch.status, id).toBe(404);
    }
    expect((await api('GET', '/tickets/2147483647', { key })).status).toBe(404);
  });

  it('a ticket of another workspace is not found', async () => {
    const other = await createTestWorkspace();
    const otherKey = (await other.key()).value;
    const foreign = await createTicket(other, otherKey);
    expect((await api('GET', `/tickets/${foreign.id}`, { key })).status).toBe(404);
    expect((await api('PATCH', `/tickets/${foreign.id}`, { key, body: { subject: 'mine' } })).status).toBe(404);
    expect((await api('POST', `/tickets/${foreign.id}/comments`, { key, body: { body: 'hi' } })).status).toBe(404);
    const ids = (await allPages(key, '/tickets?limit=100')).flat().map((t) => t.id);
    expect(ids).not.toContain(foreign.id);
  });
});

describe('role visibility', () => {
  it('a key whose role sees one board gets 404 for other boards’ tickets and does not list them', async () => {
    const ws = await createTestWorkspace();
    const admin = (await ws.key()).value;
    const s = supportBoard(ws);
    const b = billingBoard(ws);
    const supportTicket = await createTicket(ws, admin);
    const billingTicket = await createTicket(ws, admin, { boardId: b.board.id, priority: 'normal', fields: [{ fieldId: b.invoice, value: 'INV' }] });
    await workspaceRepository.restrictRole(ws.roles.agent.id, [b.board.id]);
    const key = (await ws.key({ role: ws.roles.agent.id, scopes: ['tickets:read', 'tickets:write'] })).value;

    expect((await api('GET', `/tickets/${billingTicket.id}`, { key })).status).toBe(200);
    for (const [method, path, body] of [
      ['GET', `/tickets/${supportTicket.id}`],
      ['GET', `/tickets/${supportTicket.id}/comments`],
      ['PATCH', `/tickets/${supportTicket.id}`, { subject: 'seen?' }],
      ['POST', `/tickets/${supportTicket.id}/comments`, { body: 'seen?' }],
    ] as const) {
      const res = await api(method, path, { key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    const listed = await api('GET', '/tickets', { key });
    expect(listed.body.data.map((t: any) => t.id)).toEqual([billingTicket.id]);
    expect((await api('GET', `/tickets?boardId=${s.board.id}`, { key })).body).toEqual({ data: [], nextCursor: null });
    expect422(await api('POST', '/tickets', { key, body: { boardId: s.board.id, subject: 'x', requesterEmail: 'a@example.com' } }), ['/boardId']);

    // GraphQL applies the same rule.
    const r = await gql(key, 'query($id: Int!) { ticket(id: $id) { id } }', { id: supportTicket.id });
    expect(r.errors?.[0].extensions.code).toBe('not_found');
    const h = await gql(key, 'query($id: Int!) { ticketHistory(ticketId: $id) { edges { node { id } } } }', { id: supportTicket.id });
    expect(h.errors?.[0].extensions.code).toBe('not_found');
  });
});
