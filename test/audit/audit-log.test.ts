// The audit log (src/audit): each surface records its administrative actions with the right
// actor, address and changed fields, never a secret; only administrators read it, their own
// workspace's entries only; filters, paging and hostile filters.
import { beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { createApp } from '../../src/http/app.ts';
import { runCli } from '../../src/admin/commands.ts';
import { hashPassword } from '../../src/access/password.ts';
import { MAX_FAILED_SIGN_INS_RECORDED_PER_HOUR, recordFailedSignIns } from '../../src/auth/session-audit.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { createTestWorkspace, randomSuffix } from '../support/fixtures.ts';
import { AUDIT_ACTION_NAMES } from '../../src/audit/audit.actions.ts';
import { useMailer } from '../../src/users/invitation.service.ts';
import { AUDIT_ACTIONS as UI_AUDIT_ACTIONS } from '../../web/src/api/operations.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

const URL_OK = 'https://93.184.216.34/ticketing';
const PASSWORD = 'correct horse battery staple';
// Requests come through a trusted proxy (127.0.0.1) that reports the client's address.
const app = createApp({ trustedProxies: ['127.0.0.1'] });

async function call(method: string, path: string, opts: { key?: string; body?: unknown; headers?: Record<string, string>; from?: string } = {}) {
  const headers: Record<string, string> = { 'x-forwarded-for': opts.from ?? '203.0.113.7', ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const url = `http://localhost${path.startsWith('/graphql') ? '' : '/public/v1'}${path}`;
  const res = await app.fetch(new Request(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }), {
    incoming: { socket: { remoteAddress: '127.0.0.1' } },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

async function signIn(email: string, password = PASSWORD, from?: string) {
  const res = await call('POST', '/graphql', {
    from,
    body: { query: 'mutation($email: String!, $password: String!) { signIn(email: $email, password: $password) { csrfToken } }', variables: { email, password } },
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  return { res, headers: cookie && res.body.data ? { cookie, 'x-csrf-token': res.body.data.signIn.csrfToken as string } : undefined };
}

const gql = (headers: Record<string, string>, query: string, variables: Record<string, unknown> = {}, from?: string) =>
  call('POST', '/graphql', { headers, body: { query, variables }, from });

/** Every stored entry of the workspace, as text: what the secret checks look through. */
async function storedText(workspaceId: number) {
  return JSON.stringify(await prisma.auditEntry.findMany({ where: { workspaceId } }));
}

const entries = (ws: Workspace, where: Record<string, unknown> = {}) =>
  prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id, ...where }, orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] });

describe('the audit log', () => {
  let ws: Workspace;
  let reader: string; // an admin-role key with audit:read

  beforeAll(async () => {
    ws = await createTestWorkspace();
    reader = (await ws.key({ scopes: ['audit:read'] })).value;
  });

  it('records a key’s REST changes of a subscription with the key, the client address and the changed fields, never the secrets', async () => {
    const k = await ws.key({ scopes: ['webhooks:manage'] });
    const created = await call('POST', '/webhooks', { key: k.value, body: { url: URL_OK, events: ['ticket.created'], description: 'CRM' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const patched = await call('PATCH', `/webhooks/${id}`, { key: k.value, body: { events: ['ticket.created', 'ticket.updated'], boards: [ws.boards[0].id] }, from: '198.51.100.9' });
    expect(patched.status).toBe(200);
    const rotated = await call('POST', `/webhooks/${id}/rotate-secret`, { key: k.value });
    expect(rotated.status).toBe(200);
    expect((await call('DELETE', `/webhooks/${id}`, { key: k.value })).status).toBe(204);

    const log = await call('GET', `/audit-log?targetType=webhook_subscription&targetId=${id}`, { key: reader });
    expect(log.status).toBe(200);
    expect(log.body.data.map((e: { action: string }) => e.action)).toEqual([
      'webhook_subscription.deleted',
      'webhook_subscription.secret_rotated',
      'webhook_subscription.updated',
      'webhook_subscription.created',
    ]);
    const [deleted, rotation, update, creation] = log.body.data;
    const actor = { type: 'api_key', id: String(k.record.id), label: k.record.prefix };
    expect(creation).toMatchObject({ actor, address: '203.0.113.7', target: { type: 'webhook_subscription', id } });
    expect(creation.changes).toEqual(
      expect.arrayContaining([
        { field: 'url', before: null, after: URL_OK },
        { field: 'events', before: null, after: ['ticket.created'] },
        { field: 'description', before: null, after: 'CRM' },
      ]),
    );
    // Only what changed: the events and the boards, before and after.
    expect(update).toMatchObject({ actor, address: '198.51.100.9' });
    expect(update.changes).toEqual([
      { field: 'events', before: ['ticket.created'], after: ['ticket.created', 'ticket.updated'] },
      { field: 'boardIds', before: [], after: [ws.boards[0].id] },
    ]);
    expect(rotation.changes.map((c: { field: string }) => c.field)).toEqual(['secretRotatedAt']);
    expect(deleted.changes).toEqual([{ field: 'url', before: URL_OK, after: null }]);

    const stored = await storedText(ws.workspace.id);
    for (const secret of [created.body.secret, rotated.body.secret, k.value, k.value.slice(15)]) {
      expect(secret.length).toBeGreaterThan(20);
      expect(stored).not.toContain(secret);
    }
    expect(stored).not.toContain('whsec_');
  });

  it('records a person’s sign-in, key creation and revocation, pause and sign-out through GraphQL', async () => {
    const { headers } = await signIn(ws.admin.email!, PASSWORD, '192.0.2.44');
    expect(headers).toBeDefined();
    const created = await gql(headers!, 'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { value apiKey { id prefix } } }', {
      input: { name: 'Exporter', roleId: ws.roles.viewer.id, scopes: ['tickets:read'] },
    }, '192.0.2.44');
    expect(created.body.errors).toBeUndefined();
    const keyId = created.body.data.createApiKey.apiKey.id as number;
    const value = created.body.data.createApiKey.value as string;
    expect((await gql(headers!, 'mutation($id: Int!) { revokeApiKey(id: $id) }', { id: keyId }, '192.0.2.44')).body.data.revokeApiKey).toBe(true);

    const sub = await gql(headers!, 'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id secret } }', {
      input: { url: URL_OK, events: ['ticket.created'] },
    });
    const subId = sub.body.data.createWebhookSubscription.id as string;
    expect((await gql(headers!, 'mutation($id: String!) { pauseWebhookSubscription(id: $id) { condition } }', { id: subId })).body.data.pauseWebhookSubscription.condition).toBe('paused');
    expect((await gql(headers!, 'mutation { signOut }')).body.data.signOut).toBe(true);

    const person = { actorType: 'person', actorId: String(ws.admin.id), actorLabel: ws.admin.email };
    const mine = await entries(ws, { actorType: 'person', actorId: String(ws.admin.id) });
    expect(mine.map((e) => e.action)).toEqual([
      'session.signed_in',
      'api_key.created',
      'api_key.revoked',
      'webhook_subscription.created',
      'webhook_subscription.paused',
      'session.signed_out',
    ]);
    for (const e of mine) expect(e).toMatchObject(person);
    expect(mine[0]).toMatchObject({ targetType: 'user', targetId: String(ws.admin.id), address: '192.0.2.44' });
    expect(mine[1]).toMatchObject({ targetType: 'api_key', targetId: String(keyId), address: '192.0.2.44' });
    expect(mine[1].changes).toEqual(
      expect.arrayContaining([
        { field: 'name', before: null, after: 'Exporter' },
        { field: 'scopes', before: null, after: ['tickets:read'] },
        { field: 'roleId', before: null, after: ws.roles.viewer.id },
      ]),
    );
    expect(mine[2].changes).toEqual([{ field: 'revokedAt', before: null, after: expect.stringMatching(/^\d{4}-/) }]);
    expect(mine[4].changes).toEqual([{ field: 'condition', before: 'receiving', after: 'paused' }]);

    const stored = await storedText(ws.workspace.id);
    expect(stored).not.toContain(value);
    expect(stored).not.toContain(sub.body.data.createWebhookSubscription.secret);
    expect(stored).not.toContain(headers!.cookie.split('=')[1]);
    expect(stored).not.toContain(headers!['x-csrf-token']);
    expect(stored).not.toContain(PASSWORD);
  });

  it('records an invitation and its acceptance (an anonymous request) with the addresses they came from', async () => {
    const mail: string[] = [];
    useMailer({ from: 'service@example.test', transport: { sendMail: async (m) => void mail.push((m as { text: string }).text) } });
    try {
      const { headers } = await signIn(ws.admin.email!, PASSWORD, '192.0.2.45');
      const email = `invited-${randomSuffix()}@example.test`;
      const invited = await gql(headers!, 'mutation($input: InviteUserInput!) { inviteUser(input: $input) { link } }', { input: { email, roleId: ws.roles.agent.id } }, '192.0.2.45');
      expect(invited.body.errors).toBeUndefined();
      const token = new URL(invited.body.data.inviteUser.link as string).hash.slice(1);
      const accepted = await call('POST', '/graphql', {
        from: '198.51.100.46',
        body: { query: 'mutation($t: String!, $n: String!, $p: String!) { acceptInvitation(token: $t, fullName: $n, password: $p) { userId } }', variables: { t: token, n: 'Invited', p: PASSWORD } },
      });
      expect(accepted.body.errors).toBeUndefined();
      const rows = await entries(ws, { action: { in: ['user.invited', 'user.invitation_accepted'] } });
      expect(rows.map((e) => [e.action, e.actorLabel, e.address])).toEqual([
        ['user.invited', ws.admin.email, '192.0.2.45'],
        ['user.invitation_accepted', email, '198.51.100.46'],
      ]);
    } finally {
      useMailer(undefined);
    }
  });

  it('reads the log through GraphQL as an administrator', async () => {
    const { headers } = await signIn(ws.admin.email!);
    const res = await gql(headers!, 'query($action: String) { auditLog(first: 5, action: $action) { edges { node { action actor { type id label } address target { type id } changes { field before after } } } } }', {
      action: 'session.signed_in',
    });
    expect(res.body.errors).toBeUndefined();
    const nodes = res.body.data.auditLog.edges.map((e: { node: unknown }) => e.node);
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    expect(nodes[0]).toEqual({ action: 'session.signed_in', actor: { type: 'person', id: String(ws.admin.id), label: ws.admin.email }, address: '203.0.113.7', target: { type: 'user', id: String(ws.admin.id) }, changes: [] });
  });

  it('records the CLI’s key commands and workspace creation as the operator, without an address', async () => {
    const out = await runCli(['keys', 'create', '--workspace', ws.workspace.domain, '--name', 'Nightly', '--role', 'Viewer', '--scopes', 'tickets:read']);
    const value = out.trim().split('\n').at(-1)!;
    const id = /id (\d+)/.exec(out)![1];
    await runCli(['keys', 'revoke', '--workspace', ws.workspace.domain, '--id', id]);
    const ops = await entries(ws, { targetType: 'api_key', targetId: id });
    expect(ops.map((e) => [e.action, e.actorType, e.actorId, e.actorLabel, e.address])).toEqual([
      ['api_key.created', 'operator', null, 'cli', null],
      ['api_key.revoked', 'operator', null, 'cli', null],
    ]);
    expect(await storedText(ws.workspace.id)).not.toContain(value);

    const domain = `https://cli-${randomSuffix()}.example.test`;
    const made = await runCli(['workspaces', 'create', '--name', 'By CLI', '--domain', domain, '--admin-email', `a-${randomSuffix()}@example.test`]);
    const password = /\/ (\S+)$/m.exec(made)![1];
    const other = (await workspaceRepository.findByDomain(domain))!;
    const [entry] = await prisma.auditEntry.findMany({ where: { workspaceId: other.id } });
    expect(entry).toMatchObject({ action: 'workspace.created', actorType: 'operator', targetType: 'workspace', targetId: String(other.id), address: null });
    expect(entry.changes).toEqual([{ field: 'name', before: null, after: 'By CLI' }, { field: 'domain', before: null, after: domain }]);
    expect(await storedText(other.id)).not.toContain(password);
  });

  it('records a failed sign-in of an account of the workspace with its address; an unknown e-mail adds nothing', async () => {
    const other = await createTestWorkspace();
    const before = await prisma.auditEntry.count({ where: { workspaceId: other.workspace.id } });
    const wrong = await signIn(other.admin.email!, 'not the password at all', '198.51.100.77');
    expect(wrong.res.body.errors[0].extensions.code).toBe('unauthenticated');
    // Written beside the answer (so that its time tells nothing about the account).
    await expect.poll(() => prisma.auditEntry.count({ where: { workspaceId: other.workspace.id, action: 'session.sign_in_failed' } }), { timeout: 10_000 }).toBe(1);
    const failed = await entries(other, { action: 'session.sign_in_failed' });
    expect(failed[0]).toMatchObject({ actorType: 'person', actorId: String(other.admin.id), targetType: 'user', targetId: String(other.admin.id), address: '198.51.100.77', changes: [] });
    expect(await storedText(other.workspace.id)).not.toContain('not the password at all');

    await signIn(`nobody-${randomSuffix()}@example.test`, 'whatever password', '198.51.100.78');
    // A second wrong password for the account, after the unknown e-mail: once it shows, the first would have too.
    await signIn(other.admin.email!, 'still not the password', '198.51.100.79');
    await expect.poll(() => prisma.auditEntry.count({ where: { workspaceId: other.workspace.id, action: 'session.sign_in_failed' } }), { timeout: 10_000 }).toBe(2);
    expect(await prisma.auditEntry.count({ where: { workspaceId: other.workspace.id } })).toBe(before + 2);
  });

  it('bounds the failed sign-ins recorded per account and hour', async () => {
    const other = await createTestWorkspace();
    const account = { id: other.admin.id, workspaceId: other.workspace.id, email: other.admin.email, userName: other.admin.userName };
    for (let i = 0; i < MAX_FAILED_SIGN_INS_RECORDED_PER_HOUR + 5; i++) await recordFailedSignIns([account], '198.51.100.1', new Date());
    expect(await prisma.auditEntry.count({ where: { workspaceId: other.workspace.id, action: 'session.sign_in_failed' } })).toBe(MAX_FAILED_SIGN_INS_RECORDED_PER_HOUR);
  });

  it('is for administrators only: the scope, and an admin role', async () => {
    const noScope = await ws.key({ scopes: ['webhooks:manage'] });
    const res = await call('GET', '/audit-log', { key: noScope.value });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect(res.headers.get('content-type')).toContain('application/problem+json');

    const viewer = await ws.key({ scopes: ['audit:read'], role: ws.roles.viewer.id });
    const refused = await call('GET', '/audit-log', { key: viewer.value });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');

    const email = `agent-${randomSuffix()}@example.test`;
    await workspaceRepository.createUser({ workspaceId: ws.workspace.id, email, fullName: 'Agent', roleId: ws.roles.agent.id, passwordHash: await hashPassword(PASSWORD) });
    const { headers } = await signIn(email);
    const asAgent = await gql(headers!, '{ auditLog(first: 1) { edges { node { id } } } }');
    expect(asAgent.body.errors[0].extensions.code).toBe('forbidden');
    expect(asAgent.body.data).toBeNull();
  });

  it('shows a workspace its own entries only', async () => {
    const other = await createTestWorkspace();
    const otherReader = (await other.key({ scopes: ['audit:read'] })).value;
    const mine = await call('GET', '/audit-log?limit=100', { key: reader });
    const theirs = await call('GET', '/audit-log?limit=100', { key: otherReader });
    expect(theirs.status).toBe(200);
    const theirIds = new Set(theirs.body.data.map((e: { id: string }) => e.id));
    expect(mine.body.data.length).toBeGreaterThan(0);
    for (const e of mine.body.data) expect(theirIds.has(e.id)).toBe(false);
    // Another workspace's key as a filter finds nothing, and says nothing about it.
    const keyId = (await entries(ws, { action: 'api_key.created' }))[0].targetId;
    const probe = await call('GET', `/audit-log?targetType=api_key&targetId=${keyId}`, { key: otherReader });
    expect(probe.status).toBe(200);
    expect(probe.body.data).toEqual([]);
  });

  it('filters by action, actor, target and time, and pages newest first without repeats', async () => {
    const byAction = await call('GET', '/audit-log?action=api_key.created', { key: reader });
    expect(byAction.body.data.length).toBeGreaterThan(1);
    for (const e of byAction.body.data) expect(e.action).toBe('api_key.created');

    const byActor = await call('GET', `/audit-log?actorType=person&actorId=${ws.admin.id}`, { key: reader });
    for (const e of byActor.body.data) expect(e.actor).toMatchObject({ type: 'person', id: String(ws.admin.id) });
    const operator = await call('GET', '/audit-log?actorType=operator', { key: reader });
    expect(operator.body.data.map((e: { action: string }) => e.action)).toContain('workspace.created');

    const all = await prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id }, orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }] });
    const seen: string[] = [];
    let path = '/audit-log?limit=3';
    for (;;) {
      const page = await call('GET', path, { key: reader });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((e: { id: string }) => e.id));
      if (!page.body.nextCursor) break;
      path = `/audit-log?limit=3&cursor=${encodeURIComponent(page.body.nextCursor)}`;
    }
    // Entries written while paging (the reads write none) would be new ones at the front.
    expect(seen).toEqual(all.map((e) => e.id));

    const middle = all[Math.floor(all.length / 2)].occurredAt;
    const since = await call('GET', `/audit-log?limit=100&since=${middle.toISOString()}`, { key: reader });
    const until = await call('GET', `/audit-log?limit=100&until=${middle.toISOString()}`, { key: reader });
    for (const e of since.body.data) expect(new Date(e.occurredAt).getTime()).toBeGreaterThanOrEqual(middle.getTime());
    for (const e of until.body.data) expect(new Date(e.occurredAt).getTime()).toBeLessThan(middle.getTime());
    expect(since.body.data.length + until.body.data.length).toBe(all.length);
  });

  it('refuses hostile filters with a 422 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['action=api_key.exploded', 'action'],
      ['actorType=robot', 'actorType'],
      ['actorType=person&actorId=abc', 'actorId'],
      ['actorType=person&actorId=12345678901', 'actorId'],
      [`targetType=api_key&targetId=${'x'.repeat(65)}`, 'targetId'],
      ['targetType=api_key&targetId=1%27%20OR%201%3D1', 'targetId'],
      ['since=yesterday', 'since'],
      ['until=10000-01-01T00:00:00Z', 'until'],
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
      ['actor=me', 'actor'],
      [`action=${'a'.repeat(10_000)}`, 'action'],
    ];
    for (const [query, param] of cases) {
      const res = await call('GET', `/audit-log?${query}`, { key: reader });
      expect(res.status, query).toBe(422);
      expect(res.body.code, query).toBe('validation_failed');
      expect(JSON.stringify(res.body.errors), query).toContain(param);
    }
    // An id without its type, and another list's cursor.
    const noType = await call('GET', '/audit-log?actorId=1', { key: reader });
    expect(noType.status).toBe(422);
    expect(noType.body.errors[0].path).toBe('/actorType');
    const users = await call('GET', '/users?limit=1', { key: (await ws.key({ scopes: ['users:read', 'audit:read'] })).value });
    const foreign = await call('GET', `/audit-log?cursor=${encodeURIComponent(users.body.nextCursor)}`, { key: reader });
    expect(foreign.status).toBe(422);

    // GraphQL: wrong types and values, the same code.
    const { headers } = await signIn(ws.admin.email!);
    const wrongType = await gql(headers!, '{ auditLog(first: 1, actorType: robot) { edges { node { id } } } }');
    expect(wrongType.body.errors[0].message).toMatch(/robot/);
    const wrongValue = await gql(headers!, 'query($id: String) { auditLog(first: 1, actorType: person, actorId: $id) { edges { node { id } } } }', { id: '9'.repeat(500) });
    expect(wrongValue.body.errors[0].extensions.code).toBe('validation_failed');
    const tooMany = await gql(headers!, '{ auditLog(first: 1000) { edges { node { id } } } }');
    expect(tooMany.body.errors[0].extensions.code).toBe('validation_failed');
  });

  it('offers the settings UI’s filter every action the log records', () => {
    expect([...UI_AUDIT_ACTIONS]).toEqual(AUDIT_ACTION_NAMES);
  });
});
