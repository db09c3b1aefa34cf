// API keys per workspace are capped (MAX_API_KEYS_PER_WORKSPACE): each key has its own request
// allowance, so unlimited keys would make the workspace's allowance unlimited. Revoked and expired
// keys do not count; racing creations cannot together pass the cap.
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../src/config.ts';
import { createApp } from '../../src/http/app.ts';
import { prisma } from '../../src/db/db.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { createKeysMutation, signInAdmin } from '../support/limits.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

describe('API keys per workspace', () => {
  const app = createApp();
  const max = config.limits.maxApiKeysPerWorkspace;
  const usable = (workspaceId: number) =>
    prisma.apiKey.count({ where: { workspaceId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] } });
  let ws: Workspace;
  let session: Record<string, string>;

  beforeAll(async () => {
    ws = await createTestWorkspace('Key cap');
    session = await signInAdmin(app, ws.admin.email!);
    // All but one of the workspace's allowance.
    for (let i = 0; i < max - 1; i++) await ws.key({ scopes: ['tickets:read'] });
  });

  const createOne = () => api('POST', '/graphql', { app, headers: session, body: createKeysMutation(1, ws.roles.agent.id) });

  it(`caps a workspace at ${max} usable keys: racing creations take the last place once, the rest get api_key_limit_reached`, async () => {
    const racing = await Promise.all(Array.from({ length: 4 }, createOne));
    expect(racing.filter((r) => !r.body.errors)).toHaveLength(1);
    const refused = racing.filter((r) => r.body.errors);
    expect(refused).toHaveLength(3);
    expect(refused.map((r) => r.body.errors[0].extensions.code)).toEqual(['api_key_limit_reached', 'api_key_limit_reached', 'api_key_limit_reached']);
    expect(refused[0].body.errors[0].message).toContain(`${max} usable API keys`);
    expect(await usable(ws.workspace.id)).toBe(max);
    // Nothing of a refused creation stays: no key, no service account beyond the keys'.
    expect(await prisma.apiKey.count({ where: { workspaceId: ws.workspace.id } })).toBe(max);

    // Other workspaces are not affected.
    const other = await createTestWorkspace('Key cap, other');
    await expect(other.key({ scopes: ['tickets:read'] })).resolves.toMatchObject({ value: expect.stringMatching(/^svc_/) });
  });

  it('a revoked or expired key frees its place', async () => {
    await expect(ws.key({ scopes: ['tickets:read'] })).rejects.toMatchObject({ code: 'api_key_limit_reached' });
    const [revoked, expired] = await prisma.apiKey.findMany({ where: { workspaceId: ws.workspace.id, revokedAt: null }, orderBy: { id: 'asc' }, take: 2 });
    const revoke = await api('POST', '/graphql', {
      app,
      headers: session,
      body: { query: 'mutation($id: Int!) { revokeApiKey(id: $id) }', variables: { id: revoked.id } },
    });
    expect(revoke.body.data.revokeApiKey).toBe(true);
    expect((await createOne()).body.errors).toBeUndefined();
    expect((await createOne()).body.errors?.[0].extensions.code).toBe('api_key_limit_reached');

    // Expired (as time would make it): its place is free too.
    await prisma.apiKey.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    expect((await createOne()).body.errors).toBeUndefined();
    expect(await usable(ws.workspace.id)).toBe(max);
  });
});
