import { describe, expect, it, beforeAll } from 'vitest';
import { runCli } from '../../src/admin/commands.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';

describe('npm run cli -- keys create|revoke|list (the commands, in process)', () => {
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  beforeAll(async () => {
    ws = await createTestWorkspace();
  });

  it('creates a key with a role, scopes and expiry, and prints its value once', async () => {
    const out = await runCli(['keys', 'create', '--workspace', ws.workspace.domain, '--name', 'Nightly export', '--role', 'Viewer', '--scopes', 'tickets:read,boards:read', '--expires', '2099-01-01']);
    const value = out.trim().split('\n').at(-1)!;
    expect(value).toMatch(/^svc_[A-Za-z0-9]{10}_[A-Za-z0-9_-]{43}$/);
    expect(out).toContain('Role: Viewer; scopes: tickets:read, boards:read; expires 2099-01-01T00:00:00.000Z');
    const me = await api('GET', '/me', { key: value });
    expect(me.status).toBe(200);
    expect(me.body.apiKey.name).toBe('Nightly export');
    expect(me.body.apiKey.scopes).toEqual(['tickets:read', 'boards:read']);
    expect(me.body.serviceUser.roleId).toBe(ws.roles.viewer.id);

    const listed = await runCli(['keys', 'list', '--workspace', ws.workspace.domain]);
    const line = listed.split('\n').find((l) => l.includes('Nightly export'))!;
    expect(line.split(/ {2,}/)).toEqual([String(me.body.apiKey.id), me.body.apiKey.prefix, 'Nightly export', 'Viewer', 'tickets:read,boards:read', '2099-01-01 00:00', expect.stringMatching(/^(\d{4}-\d\d-\d\d \d\d:\d\d|-)$/), '-']);
    expect(listed.split('\n')[0]).toMatch(/^ID +PREFIX +NAME +ROLE +SCOPES +EXPIRES +LAST USED +REVOKED$/);
    expect(listed).not.toContain(value.slice(15));

    const revoked = await runCli(['keys', 'revoke', '--workspace', ws.workspace.domain, '--id', String(me.body.apiKey.id)]);
    expect(revoked).toContain('Revoked');
    expect((await api('GET', '/me', { key: value })).status).toBe(401);
    const after = (await runCli(['keys', 'list', '--workspace', ws.workspace.domain])).split('\n').find((l) => l.includes('Nightly export'))!;
    expect(after.split(/ {2,}/).at(-1)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
  });

  it('refuses unknown scopes, unknown roles and past expiry with a clear message', async () => {
    const base = ['keys', 'create', '--workspace', ws.workspace.domain, '--name', 'x'];
    await expect(runCli([...base, '--role', 'Viewer', '--scopes', 'tickets:delete'])).rejects.toMatchObject({ code: 'validation_failed', errors: [{ path: '/scopes/0' }] });
    await expect(runCli([...base, '--role', 'Nobody', '--scopes', 'tickets:read'])).rejects.toThrow(/No role Nobody/);
    await expect(runCli([...base, '--role', 'Viewer', '--scopes', 'tickets:read', '--expires', '2001-01-01'])).rejects.toThrow(/future/);
    await expect(runCli(['keys', 'create', '--workspace', 'https://nowhere.example.test', '--name', 'x', '--role', 'Viewer', '--scopes', 'tickets:read'])).rejects.toThrow(/No workspace/);
    await expect(runCli(['frobnicate'])).rejects.toThrow(/usage/);
    await expect(runCli(['keys', 'revoke', '--workspace', ws.workspace.domain, '--id', 'seven'])).rejects.toThrow(/usage/);
  });
});
