import { describe, expect, it } from 'vitest';
import { api, createTestWorkspace, randomSuffix } from '../support/fixtures.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';

const USER_KEYS = ['id', 'userName', 'fullName', 'email', 'kind', 'roleId', 'isAdmin', 'deactivatedAt', 'createdAt'];

async function gql(key: string, query: string, variables?: Record<string, unknown>) {
  const res = await api('POST', '/graphql', { key, body: { query, variables } });
  expect(res.status).toBe(200);
  return res.body as { data: any; errors?: { message: string; extensions: { code: string } }[] };
}

describe('GET /users', () => {
  it('lists people and service accounts in creation order, exactly as documented', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ name: 'Sync', scopes: ['users:read'], role: ws.roles.agent.id });
    const res = await api('GET', '/users', { key: key.value });
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBeNull();
    expect(res.body).toEqual({
      data: [
        {
          id: ws.admin.id,
          userName: ws.admin.userName,
          fullName: 'Test Admin',
          email: ws.admin.email,
          kind: 'human',
          roleId: ws.roles.admin.id,
          isAdmin: true,
          deactivatedAt: null,
          createdAt: ws.admin.createdAt.toISOString(),
        },
        {
          id: key.record.serviceUserId,
          userName: expect.stringMatching(/^svc-/),
          fullName: 'Sync (API key)',
          email: null,
          kind: 'service',
          roleId: ws.roles.agent.id,
          isAdmin: false,
          deactivatedAt: null,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
      ],
      nextCursor: null,
    });
    // ?kind= keeps people or service accounts only.
    expect((await api('GET', '/users?kind=human', { key: key.value })).body.data.map((u: { id: number }) => u.id)).toEqual([ws.admin.id]);
    expect((await api('GET', '/users?kind=service', { key: key.value })).body.data.map((u: { id: number }) => u.id)).toEqual([key.record.serviceUserId]);
    expect((await api('GET', '/users?kind=robot', { key: key.value })).status).toBe(422);
  });

  it('pages with limit and cursor and a Link header; only this workspace’s users', async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    for (let i = 0; i < 4; i++) {
      await workspaceRepository.createUser({
        workspaceId: ws.workspace.id,
        email: `agent-${i}-${randomSuffix()}@example.test`,
        fullName: `Agent ${i}`,
        roleId: ws.roles.agent.id,
        passwordHash: 'x',
      });
    }
    const key = await ws.key({ scopes: ['users:read'] });
    const ids: number[] = [];
    let path = '/users?limit=2';
    for (;;) {
      const res = await api('GET', path, { key: key.value });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      for (const u of res.body.data) expect(Object.keys(u)).toEqual(USER_KEYS);
      ids.push(...res.body.data.map((u: { id: number }) => u.id));
      if (!res.body.nextCursor) {
        expect(res.body.nextCursor).toBeNull();
        expect(res.headers.get('link')).toBeNull();
        break;
      }
      const link = res.headers.get('link')!;
      expect(link).toMatch(/^<\/public\/v1\/users\?limit=2&cursor=[^>]+>; rel="next"$/);
      path = link.slice('</public/v1'.length, link.indexOf('>'));
    }
    // The administrator, four agents and the key's service account.
    expect(ids).toHaveLength(6);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids).toContain(key.record.serviceUserId);
    expect(ids).not.toContain(other.admin.id);
  });

  it('refuses keys without users:read (403 naming the scope) and bad paging (422)', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['boards:read', 'tickets:write', 'kb:write'] });
    for (const path of ['/users', `/users/${ws.admin.id}`]) {
      const res = await api('GET', path, { key: key.value });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="users:read"');
    }
    const reader = await ws.key({ scopes: ['users:read'] });
    const tooMany = await api('GET', '/users?limit=500', { key: reader.value });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors).toEqual([expect.objectContaining({ path: 'query/limit' })]);
    const boards = await api('GET', '/boards?limit=1', { key: (await ws.key({ scopes: ['boards:read'] })).value });
    for (const cursor of [boards.body.nextCursor, 'abc', '']) {
      const res = await api('GET', `/users?cursor=${encodeURIComponent(cursor)}`, { key: reader.value });
      expect(res.status, cursor).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
  });
});

describe('GET /users/{id}', () => {
  it('answers a person or a service account', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ name: 'Reporter', scopes: ['users:read'] });
    const admin = await api('GET', `/users/${ws.admin.id}`, { key: key.value });
    expect(admin.status).toBe(200);
    expect(Object.keys(admin.body)).toEqual(USER_KEYS);
    expect(admin.body).toMatchObject({ id: ws.admin.id, kind: 'human', email: ws.admin.email, isAdmin: true });
    const svc = await api('GET', `/users/${key.record.serviceUserId}`, { key: key.value });
    expect(svc.body).toMatchObject({ id: key.record.serviceUserId, kind: 'service', fullName: 'Reporter (API key)', email: null, isAdmin: false });
  });

  it('answers 404 for users of another workspace and for odd ids', async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const key = await ws.key({ scopes: ['users:read'] });
    for (const id of [String(other.admin.id), '0', '-1', 'abc', '1.5', '1e3', '0x10', '01', '2147483648', '99999999999', '%20' + ws.admin.id]) {
      const res = await api('GET', `/users/${id}`, { key: key.value });
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });
});

describe('GraphQL users', () => {
  it('serves users, one user and a relay page through /graphql', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['users:read'] });
    const g = await gql(
      key.value,
      `query($id: Int!) { users(first: 1) { edges { node { id kind } } pageInfo { hasNextPage } } user(id: $id) { id fullName isAdmin } }`,
      { id: ws.admin.id },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data).toEqual({
      users: { edges: [{ node: { id: ws.admin.id, kind: 'human' } }], pageInfo: { hasNextPage: true } },
      user: { id: ws.admin.id, fullName: 'Test Admin', isAdmin: true },
    });
    const missing = await gql(key.value, `{ user(id: 2147483647) { id } }`);
    expect(missing.errors?.[0].extensions.code).toBe('not_found');
    const noScope = await ws.key({ scopes: ['kb:read'] });
    expect((await gql(noScope.value, `{ users { edges { node { id } } } }`)).errors?.[0].extensions.code).toBe('insufficient_scope');
  });
});

describe('OpenAPI', () => {
  it('documents the user representation', () => {
    const doc = buildOpenApiDocument() as any;
    const list = doc.paths['/users'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(list.properties.data.items.properties)).toEqual(USER_KEYS);
    expect(doc.paths['/users/{id}'].get.responses['200'].content['application/json'].schema).toEqual(list.properties.data.items);
  });
});
