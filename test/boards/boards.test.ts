import { describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';

type Ws = Awaited<ReturnType<typeof createTestWorkspace>>;
type SeededBoard = Ws['boards'][number];

/** The documented board representation, built from the rows the fixture created. */
const representation = (b: SeededBoard) => ({
  id: b.id,
  name: b.name,
  fields: b.fields.map((f) => ({ id: f.id, name: f.name, type: f.type, required: f.required, options: f.options })),
  states: b.states.map((s) => ({ id: s.id, name: s.name, category: s.category })),
  priorities: b.priorities,
  archivedAt: null,
});

const extraBoard = (name: string) => ({
  name,
  priorities: ['p1', 'p2'],
  fields: [{ name: 'Area', type: 'select' as const, options: ['a', 'b'] }],
  states: [{ name: 'Open', category: 'open' as const, initial: true }],
});

async function gql(key: string, query: string, variables?: Record<string, unknown>) {
  const res = await api('POST', '/graphql', { key, body: { query, variables } });
  expect(res.status).toBe(200);
  return res.body as { data: any; errors?: { message: string; extensions: { code: string } }[] };
}

describe('GET /boards', () => {
  it('lists every board of an all-boards role with fields, states and priorities, exactly as documented', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['boards:read'] });
    const res = await api('GET', '/boards', { key: key.value });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('link')).toBeNull();
    expect(res.body).toEqual({ data: ws.boards.map(representation), nextCursor: null });
    // The demo board's select field lists its options; a text field has none.
    const support = res.body.data.find((b: { name: string }) => b.name === 'Support');
    expect(support.fields[0]).toMatchObject({ name: 'Product', type: 'select', required: true, options: ['Web', 'Mobile', 'API'] });
    expect(support.fields[1]).toMatchObject({ name: 'Order number', type: 'text', required: false, options: [] });
    expect(support.states.map((s: { category: string }) => s.category)).toEqual(['open', 'open', 'pending', 'solved', 'closed']);
  });

  it('pages with limit and cursor, with nextCursor null and no Link on the last page', async () => {
    const ws = await createTestWorkspace();
    for (const n of ['Three', 'Four', 'Five']) await workspaceRepository.createBoard(ws.workspace.id, extraBoard(n));
    const key = await ws.key({ scopes: ['tickets:read'] });

    const seen: string[] = [];
    let path = '/boards?limit=2';
    const pageSizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api('GET', path, { key: key.value });
      expect(res.status).toBe(200);
      pageSizes.push(res.body.data.length);
      seen.push(...res.body.data.map((b: { id: string }) => b.id));
      if (res.body.nextCursor === null) {
        expect(res.headers.get('link')).toBeNull();
        break;
      }
      const link = res.headers.get('link');
      expect(link).toBe(`</public/v1/boards?limit=2&cursor=${encodeURIComponent(res.body.nextCursor)}>; rel="next"`);
      path = link!.slice('</public/v1'.length, link!.indexOf('>'));
    }
    expect(pageSizes).toEqual([2, 2, 1]);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect(seen.slice(0, 2)).toEqual(ws.boards.map((b) => b.id));

    const all = await api('GET', '/boards', { key: key.value });
    expect(all.body.data.map((b: { id: string }) => b.id)).toEqual(seen);
  });

  it('refuses a bad limit or cursor with 422, never 500', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key();
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5']) {
      const res = await api('GET', `/boards?${q}`, { key: key.value });
      expect(res.status, q).toBe(422);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors).toEqual([expect.objectContaining({ path: 'query/limit' })]);
    }
    const users = await api('GET', '/users?limit=1', { key: key.value });
    const foreignCursor = users.body.nextCursor as string;
    expect(foreignCursor).toEqual(expect.any(String));
    for (const cursor of ['garbage', 'R1BDOg', foreignCursor, 'x'.repeat(600)]) {
      const res = await api('GET', `/boards?cursor=${encodeURIComponent(cursor)}`, { key: key.value });
      expect(res.status, cursor).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
  });

  it('answers 403 insufficient_scope naming the scopes that would do, and 401 without a key', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['users:read', 'kb:read'] });
    for (const path of ['/boards', `/boards/${ws.boards[0].id}`]) {
      const res = await api('GET', path, { key: key.value });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="boards:read tickets:read tickets:write"');
    }
    for (const scope of ['boards:read', 'tickets:read', 'tickets:write'] as const) {
      const k = await ws.key({ scopes: [scope] });
      expect((await api('GET', '/boards', { key: k.value })).status, scope).toBe(200);
    }
    const anonymous = await api('GET', '/boards');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('invalid_token');
  });
});

describe('GET /boards/{id}', () => {
  it('answers one board exactly as documented', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['tickets:write'] });
    const res = await api('GET', `/boards/${ws.boards[1].id}`, { key: key.value });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(representation(ws.boards[1]));
  });

  it('answers 404 for unknown, foreign and odd ids', async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const key = await ws.key();
    const odd = ['brd_nope', other.boards[0].id, 'x'.repeat(65), "brd_1'--", '%00', '..%2F..%2Fetc', '%E2%98%83'];
    for (const id of odd) {
      const res = await api('GET', `/boards/${id}`, { key: key.value });
      expect(res.status, id).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe('not_found');
    }
  });
});

describe('role visibility', () => {
  it('hides boards the role cannot see: absent from lists, 404 when asked for, in REST and GraphQL', async () => {
    const ws = await createTestWorkspace();
    const [visible, hidden] = ws.boards;
    await workspaceRepository.restrictRole(ws.roles.agent.id, [visible.id]);
    const key = await ws.key({ role: ws.roles.agent.id, scopes: ['boards:read'] });

    const list = await api('GET', '/boards', { key: key.value });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [representation(visible)], nextCursor: null });
    expect((await api('GET', `/boards/${visible.id}`, { key: key.value })).status).toBe(200);
    const denied = await api('GET', `/boards/${hidden.id}`, { key: key.value });
    expect(denied.status).toBe(404);
    expect(denied.body.code).toBe('not_found');

    const g = await gql(key.value, `query($id: String!) { boards { edges { node { id } } } board(id: $id) { id } }`, { id: hidden.id });
    expect(g.errors?.[0].extensions.code).toBe('not_found');
    const listOnly = await gql(key.value, `{ boards { edges { node { id } } } }`);
    expect(listOnly.data.boards.edges).toEqual([{ node: { id: visible.id } }]);

    // Administrators see every board whatever their role's list says.
    const admin = await ws.key({ role: ws.roles.admin.id, scopes: ['boards:read'] });
    const adminList = await api('GET', '/boards', { key: admin.value });
    expect(adminList.body.data.map((b: { id: string }) => b.id)).toEqual([visible.id, hidden.id]);
  });
});

describe('GraphQL boards', () => {
  it('serves the same boards through /graphql, with relay paging', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['boards:read'] });
    const first = await gql(key.value, `{ boards(first: 1) { edges { node { id name priorities } } pageInfo { hasNextPage endCursor } } }`);
    expect(first.errors).toBeUndefined();
    expect(first.data.boards.edges).toEqual([{ node: { id: ws.boards[0].id, name: 'Support', priorities: ['low', 'normal', 'high', 'urgent'] } }]);
    expect(first.data.boards.pageInfo.hasNextPage).toBe(true);
    const second = await gql(key.value, `query($after: String) { boards(first: 5, after: $after) { edges { node { id } } pageInfo { hasNextPage } } }`, {
      after: first.data.boards.pageInfo.endCursor,
    });
    expect(second.data.boards).toEqual({ edges: [{ node: { id: ws.boards[1].id } }], pageInfo: { hasNextPage: false } });

    const one = await gql(key.value, `query($id: String!) { board(id: $id) { id fields { id name type } states { id category } } }`, { id: ws.boards[1].id });
    expect(one.data.board).toEqual({
      id: ws.boards[1].id,
      fields: ws.boards[1].fields.map((f) => ({ id: f.id, name: f.name, type: f.type })),
      states: ws.boards[1].states.map((s) => ({ id: s.id, category: s.category })),
    });

    const bad = await gql(key.value, `{ boards(after: "not-a-cursor") { edges { node { id } } } }`);
    expect(bad.errors?.[0].extensions.code).toBe('validation_failed');

    const noScope = await ws.key({ scopes: ['kb:read'] });
    const denied = await gql(noScope.value, `{ boards { edges { node { id } } } }`);
    expect(denied.errors?.[0].extensions.code).toBe('insufficient_scope');
  });
});

describe('OpenAPI', () => {
  it('documents the board representation that the routes answer', () => {
    const doc = buildOpenApiDocument() as any;
    const list = doc.paths['/boards'].get.responses['200'].content['application/json'].schema;
    expect(list.required).toEqual(['data', 'nextCursor']);
    const board = list.properties.data.items;
    expect(Object.keys(board.properties)).toEqual(['id', 'name', 'fields', 'states', 'priorities', 'archivedAt']);
    expect(Object.keys(board.properties.fields.items.properties)).toEqual(['id', 'name', 'type', 'required', 'options']);
    expect(Object.keys(board.properties.states.items.properties)).toEqual(['id', 'name', 'category']);
    expect([...board.properties.states.items.properties.category.enum].sort()).toEqual(['closed', 'open', 'pending', 'solved']);
    expect(doc.paths['/boards/{id}'].get.responses['200'].content['application/json'].schema).toEqual(board);
    expect(doc.paths['/boards'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['limit', 'cursor']);
  });
});
