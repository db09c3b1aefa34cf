import { describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';

async function gql(key: string, query: string) {
  const res = await api('POST', '/graphql', { key, body: { query } });
  expect(res.status).toBe(200);
  return res.body as { data: any; errors?: { extensions: { code: string } }[] };
}

describe('GraphQL workspace and roles', () => {
  it('answers the caller’s workspace to any key', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['kb:read'] });
    const g = await gql(key.value, '{ workspace { name domain } }');
    expect(g).toEqual({ data: { workspace: { name: ws.workspace.name, domain: ws.workspace.domain } } });
    const anonymous = await api('POST', '/graphql', { body: { query: '{ workspace { name } }' } });
    expect(anonymous.body.errors[0].extensions.code).toBe('unauthenticated');
  });

  it('lists the roles with users:read; board lists only name boards the caller sees', async () => {
    const ws = await createTestWorkspace();
    const [visible, hidden] = ws.boards;
    await workspaceRepository.restrictRole(ws.roles.viewer.id, [visible.id, hidden.id]);
    await workspaceRepository.restrictRole(ws.roles.agent.id, [visible.id]);
    const query = '{ roles { id name isAdmin allBoards permissions boardIds } }';

    const admin = await ws.key({ scopes: ['users:read'] });
    const all = await gql(admin.value, query);
    expect(all.errors).toBeUndefined();
    expect(all.data.roles).toEqual([
      { id: ws.roles.admin.id, name: 'Administrator', isAdmin: true, allBoards: true, permissions: ['tickets.write', 'kb.write', 'webhooks.manage', 'settings.manage'], boardIds: [] },
      { id: ws.roles.agent.id, name: 'Agent', isAdmin: false, allBoards: false, permissions: ['tickets.write', 'kb.write'], boardIds: [visible.id] },
      { id: ws.roles.viewer.id, name: 'Viewer', isAdmin: false, allBoards: false, permissions: [], boardIds: expect.arrayContaining([visible.id, hidden.id]) },
    ]);

    const agent = await ws.key({ scopes: ['users:read'], role: ws.roles.agent.id });
    const limited = await gql(agent.value, query);
    expect(limited.data.roles.find((r: { name: string }) => r.name === 'Viewer').boardIds).toEqual([visible.id]);

    const noScope = await ws.key({ scopes: ['boards:read'] });
    expect((await gql(noScope.value, query)).errors?.[0].extensions.code).toBe('insufficient_scope');
  });
});
