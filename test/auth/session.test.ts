// People in GraphQL: sign-in with e-mail and password, the HttpOnly session cookie, CSRF
// protection, expiry, and the administrators' API key mutations.
import crypto from 'node:crypto';
import { describe, expect, it, beforeAll } from 'vitest';
import { api, createTestWorkspace, randomSuffix } from '../support/fixtures.ts';
import { hashPassword } from '../../src/access/password.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { sessionService, IDLE_TIMEOUT_MS } from '../../src/auth/session.service.ts';
import { prisma } from '../../src/db/db.ts';
import { config } from '../../src/config.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

const PASSWORD = 'correct horse battery staple';
const VIEWER_FIELDS = 'id userName fullName email isAdmin role { id name } workspace { name domain } csrfToken';
const SIGN_IN = `mutation($email: String!, $password: String!, $workspace: String) {
  signIn(email: $email, password: $password, workspace: $workspace) { ${VIEWER_FIELDS} }
}`;
const VIEWER = `{ viewer { ${VIEWER_FIELDS} } }`;

interface Session {
  /** `name=value`, as a browser sends it back. */
  cookie: string;
  value: string;
  csrfToken: string;
  setCookie: string;
  viewer: Record<string, any>;
}

async function gql(query: string, opts: { variables?: Record<string, unknown>; session?: Session; csrf?: string | null; key?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.session) headers.cookie = opts.session.cookie;
  const csrf = opts.csrf === undefined ? opts.session?.csrfToken : opts.csrf;
  if (csrf) headers['x-csrf-token'] = csrf;
  return api('POST', '/graphql', { body: { query, variables: opts.variables }, key: opts.key, headers });
}

/** A query over GET: the one request a session may make without the CSRF token. */
function gqlGet(query: string, session?: Session) {
  return api('GET', `/graphql?query=${encodeURIComponent(query)}`, { headers: session ? { cookie: session.cookie } : {} });
}

async function signIn(email: string, password = PASSWORD, extra: { workspace?: string; headers?: Record<string, string> } = {}): Promise<Session> {
  const res = await gql(SIGN_IN, { variables: { email, password, workspace: extra.workspace }, headers: extra.headers });
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  const setCookie = res.headers.getSetCookie();
  expect(setCookie).toHaveLength(1);
  const cookie = setCookie[0].split(';')[0];
  return { cookie, value: cookie.slice(cookie.indexOf('=') + 1), csrfToken: res.body.data.signIn.csrfToken, setCookie: setCookie[0], viewer: res.body.data.signIn };
}

async function createAgent(ws: Workspace, password = PASSWORD) {
  const suffix = randomSuffix();
  return workspaceRepository.createUser({
    workspaceId: ws.workspace.id,
    email: `agent-${suffix}@example.test`,
    fullName: `Agent ${suffix}`,
    roleId: ws.roles.agent.id,
    passwordHash: await hashPassword(password),
  });
}

const sessionIdOf = (s: Session) => crypto.createHash('sha256').update(s.value).digest('hex');
const errorOf = (res: { body: any }) => res.body.errors?.[0];

describe('signIn', () => {
  let ws: Workspace;
  let agent: Awaited<ReturnType<typeof createAgent>>;
  beforeAll(async () => {
    ws = await createTestWorkspace();
    agent = await createAgent(ws);
  });

  it('signs an agent in, answers the viewer and sets an HttpOnly, SameSite=Lax session cookie', async () => {
    const s = await signIn(agent.email!);
    expect(s.viewer).toEqual({
      id: agent.id,
      userName: agent.userName,
      fullName: agent.fullName,
      email: agent.email,
      isAdmin: false,
      role: { id: ws.roles.agent.id, name: 'Agent' },
      workspace: { name: ws.workspace.name, domain: ws.workspace.domain },
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(s.cookie).toMatch(/^session=[A-Za-z0-9_-]{43}$/);
    const attributes = s.setCookie.split(';').slice(1).map((a) => a.trim());
    expect(attributes.sort()).toEqual(['HttpOnly', 'Max-Age=604800', 'Path=/', 'SameSite=Lax']);
  });

  it('stores only the SHA-256 of the cookie value, with the CSRF token and a 7-day expiry', async () => {
    const before = Date.now();
    const s = await signIn(agent.email!);
    const row = await prisma.session.findUnique({ where: { id: sessionIdOf(s) } });
    expect(row).toMatchObject({ userId: agent.id, csrfToken: s.csrfToken });
    expect(row!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 7 * 24 * 3600_000);
    expect(await prisma.session.count({ where: { id: s.value } })).toBe(0);
  });

  it('gives every sign-in its own session and CSRF token', async () => {
    const a = await signIn(agent.email!);
    const b = await signIn(agent.email!);
    expect(a.value).not.toBe(b.value);
    expect(a.csrfToken).not.toBe(b.csrfToken);
  });

  it('matches the e-mail whatever its case, but never as a pattern', async () => {
    const s = await signIn(agent.email!.toUpperCase());
    expect(s.viewer.id).toBe(agent.id);
    const wildcard = await gql(SIGN_IN, { variables: { email: agent.email!.replace(/^agent-./, 'agent-_'), password: PASSWORD } });
    expect(errorOf(wildcard).extensions.code).toBe('unauthenticated');
    const percent = await gql(SIGN_IN, { variables: { email: '%', password: PASSWORD } });
    expect(errorOf(percent).extensions.code).toBe('unauthenticated');

    const underscored = await workspaceRepository.createUser({
      workspaceId: ws.workspace.id,
      email: `first_last-${randomSuffix()}@example.test`,
      fullName: 'First Last',
      roleId: ws.roles.agent.id,
      passwordHash: await hashPassword(PASSWORD),
    });
    expect((await signIn(underscored.email!.toUpperCase())).viewer.id).toBe(underscored.id);
    const lookalike = await gql(SIGN_IN, { variables: { email: underscored.email!.replace('_', 'x'), password: PASSWORD } });
    expect(errorOf(lookalike).extensions.code).toBe('unauthenticated');
  });

  it('answers a wrong password, an unknown e-mail and a deactivated account alike, without a cookie', async () => {
    const deactivated = await createAgent(ws);
    await prisma.user.update({ where: { id: deactivated.id }, data: { deactivatedAt: new Date() } });
    const attempts = [
      { email: agent.email, password: 'wrong password' },
      { email: `nobody-${randomSuffix()}@example.test`, password: PASSWORD },
      { email: deactivated.email, password: PASSWORD },
      { email: ws.admin.email, password: PASSWORD.toUpperCase() },
    ];
    const answers = [];
    for (const variables of attempts) {
      const res = await gql(SIGN_IN, { variables });
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(res.body.data).toBeNull();
      answers.push(errorOf(res));
    }
    expect(answers[0]).toMatchObject({ message: expect.stringMatching(/e-mail or password is wrong/), extensions: { code: 'unauthenticated', status: 401 } });
    for (const a of answers) expect(a).toEqual(answers[0]);
  });

  it('never signs in the service account of an API key, even one given an e-mail and password', async () => {
    const key = await ws.key();
    const email = `svc-${randomSuffix()}@example.test`;
    await prisma.user.update({ where: { id: key.record.serviceUserId }, data: { email, passwordHash: await hashPassword(PASSWORD) } });
    const res = await gql(SIGN_IN, { variables: { email, password: PASSWORD } });
    expect(errorOf(res).extensions.code).toBe('unauthenticated');
  });

  it('rejects empty or oversized input as validation_failed with paths', async () => {
    const res = await gql(SIGN_IN, { variables: { email: '', password: 'x'.repeat(2000) } });
    expect(errorOf(res).extensions).toMatchObject({ code: 'validation_failed', errors: [{ path: '/email' }, { path: '/password' }] });
  });

  it('asks for the workspace when one e-mail and password open accounts in two workspaces', async () => {
    const other = await createTestWorkspace('Other');
    await workspaceRepository.createUser({
      workspaceId: other.workspace.id,
      email: agent.email!,
      fullName: 'Same person, other workspace',
      roleId: other.roles.viewer.id,
      passwordHash: await hashPassword(PASSWORD),
    });
    const ambiguous = await gql(SIGN_IN, { variables: { email: agent.email, password: PASSWORD } });
    expect(errorOf(ambiguous).extensions).toMatchObject({ code: 'validation_failed', errors: [{ path: '/workspace' }] });
    expect(ambiguous.headers.getSetCookie()).toEqual([]);
    const s = await signIn(agent.email!, PASSWORD, { workspace: other.workspace.domain });
    expect(s.viewer).toMatchObject({ workspace: { domain: other.workspace.domain }, role: { name: 'Viewer' } });
    const home = await signIn(agent.email!, PASSWORD, { workspace: ws.workspace.domain });
    expect(home.viewer.id).toBe(agent.id);
  });
});

describe('a session in use', () => {
  let ws: Workspace;
  let agent: Awaited<ReturnType<typeof createAgent>>;
  beforeAll(async () => {
    ws = await createTestWorkspace();
    agent = await createAgent(ws);
  });

  it('answers viewer over GET without the CSRF token, and null without a session', async () => {
    const s = await signIn(agent.email!);
    const res = await gqlGet(VIEWER, s);
    expect(res.status).toBe(200);
    expect(res.body.data.viewer).toEqual(s.viewer);
    expect((await gqlGet(VIEWER)).body.data.viewer).toBeNull();
    const key = await ws.key();
    expect((await gql(VIEWER, { key: key.value })).body.data.viewer).toBeNull();
  });

  it('reads with the role of the person: a role limited to one board sees only that board', async () => {
    const s = await signIn(agent.email!);
    const boards = `{ boards { edges { node { id name } } } }`;
    const all = await gql(boards, { session: s });
    expect(all.status).toBe(200);
    expect(all.body.data.boards.edges.map((e: any) => e.node.id).sort()).toEqual(ws.boards.map((b) => b.id).sort());

    const limitedRole = await prisma.role.create({ data: { workspaceId: ws.workspace.id, name: `Support only ${randomSuffix()}`, permissions: [] } });
    await workspaceRepository.restrictRole(limitedRole.id, [ws.boards[0].id]);
    const limited = await workspaceRepository.createUser({
      workspaceId: ws.workspace.id,
      email: `limited-${randomSuffix()}@example.test`,
      fullName: 'Limited',
      roleId: limitedRole.id,
      passwordHash: await hashPassword(PASSWORD),
    });
    const ls = await signIn(limited.email!);
    const some = await gql(boards, { session: ls });
    expect(some.body.data.boards.edges.map((e: any) => e.node.id)).toEqual([ws.boards[0].id]);
  });

  it('refuses a POST without X-CSRF-Token, or with a wrong one, with 403 csrf_failed', async () => {
    const s = await signIn(agent.email!);
    for (const csrf of [null, 'not-the-token', s.csrfToken.slice(0, -1), `${s.csrfToken}x`]) {
      for (const query of ['mutation { signOut }', VIEWER]) {
        const res = await gql(query, { session: s, csrf });
        expect(res.status).toBe(403);
        expect(errorOf(res).extensions).toEqual({ code: 'csrf_failed', status: 403 });
      }
    }
    // GET needs no token, but yoga runs no mutation over GET.
    const overGet = await gqlGet('mutation { signOut }', s);
    expect(overGet.status).toBe(405);
    // The refused sign-outs did not happen.
    expect((await gqlGet(VIEWER, s)).body.data.viewer.id).toBe(agent.id);
  });

  it('refuses a form-encoded POST (what another site can make a browser send) without the token', async () => {
    const s = await signIn(agent.email!);
    const res = await api('POST', '/graphql', {
      rawBody: new URLSearchParams({ query: 'mutation { signOut }' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie },
    });
    expect(res.status).toBe(403);
    expect(errorOf(res).extensions.code).toBe('csrf_failed');
    expect((await gqlGet(VIEWER, s)).body.data.viewer).not.toBeNull();
  });

  it('refuses requests from a foreign Origin unless they carry an API key', async () => {
    const s = await signIn(agent.email!);
    const evil = { origin: 'https://evil.example.test' };
    const withToken = await gql(VIEWER, { session: s, headers: evil });
    expect(withToken.status).toBe(403);
    expect(errorOf(withToken).extensions.code).toBe('csrf_failed');
    const read = await api('GET', `/graphql?query=${encodeURIComponent(VIEWER)}`, { headers: { ...evil, cookie: s.cookie } });
    expect(read.status).toBe(403);
    const loginCsrf = await gql(SIGN_IN, { variables: { email: agent.email, password: PASSWORD }, headers: evil });
    expect(loginCsrf.status).toBe(403);
    expect(loginCsrf.headers.getSetCookie()).toEqual([]);

    const sameOrigin = await gql(VIEWER, { session: s, headers: { origin: new URL(config.http.publicBaseUrl).origin } });
    expect(sameOrigin.body.data.viewer.id).toBe(agent.id);
    const key = await ws.key();
    const bearer = await gql('{ me { apiKey { id } } }', { key: key.value, headers: evil });
    expect(bearer.status).toBe(200);
    expect(bearer.body.data.me.apiKey.id).toBe(key.record.id);
  });

  it('accepts a mutation with the token; API keys need none', async () => {
    const s = await signIn(agent.email!);
    const res = await gql(VIEWER, { session: s });
    expect(res.status).toBe(200);
    expect(res.body.data.viewer.id).toBe(agent.id);
    const key = await ws.key();
    const bearer = await gql('{ me { apiKey { id } } }', { key: key.value });
    expect(bearer.body.data.me.apiKey.id).toBe(key.record.id);
  });

  it('signs out with the token: the cookie is cleared and the session no longer works', async () => {
    const s = await signIn(agent.email!);
    const out = await gql('mutation { signOut }', { session: s });
    expect(out.status).toBe(200);
    expect(out.body.data.signOut).toBe(true);
    const cleared = out.headers.getSetCookie();
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatch(/^session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(await prisma.session.count({ where: { id: sessionIdOf(s) } })).toBe(0);

    expect((await gqlGet(VIEWER, s)).body.data.viewer).toBeNull();
    // The dead cookie makes the caller anonymous: no CSRF token is asked for, and nothing is allowed.
    const after = await gql('{ apiKeys { edges { node { id } } } }', { session: s, csrf: null });
    expect(errorOf(after).extensions).toMatchObject({ code: 'unauthenticated', status: 401 });
    expect((await gql('mutation { signOut }', { session: s, csrf: null })).body.data.signOut).toBe(false);
  });

  it('ends the session the browser held before when it signs in again', async () => {
    const first = await signIn(agent.email!);
    const second = await signIn(agent.email!, PASSWORD, { headers: { cookie: first.cookie, 'x-csrf-token': first.csrfToken } });
    expect((await gqlGet(VIEWER, first)).body.data.viewer).toBeNull();
    expect((await gqlGet(VIEWER, second)).body.data.viewer.id).toBe(agent.id);
  });

  it('refuses a session past its absolute expiry', async () => {
    const s = await signIn(agent.email!);
    await prisma.session.update({ where: { id: sessionIdOf(s) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await gqlGet(VIEWER, s)).body.data.viewer).toBeNull();
    const res = await gql('{ apiKeys { edges { node { id } } } }', { session: s });
    expect(errorOf(res).extensions.code).toBe('unauthenticated');
    expect(await prisma.session.count({ where: { id: sessionIdOf(s) } })).toBe(0);
  });

  it('refuses a session idle for 12 hours', async () => {
    const s = await signIn(agent.email!);
    await prisma.session.update({ where: { id: sessionIdOf(s) }, data: { lastSeenAt: new Date(Date.now() - IDLE_TIMEOUT_MS - 1000) } });
    expect((await gqlGet(VIEWER, s)).body.data.viewer).toBeNull();
    expect(await prisma.session.count({ where: { id: sessionIdOf(s) } })).toBe(0);
  });

  it('refuses the session of a person deactivated since signing in', async () => {
    const person = await createAgent(ws);
    const s = await signIn(person.email!);
    await prisma.user.update({ where: { id: person.id }, data: { deactivatedAt: new Date() } });
    expect((await gqlGet(VIEWER, s)).body.data.viewer).toBeNull();
  });

  it('writes lastSeenAt at most once a minute', async () => {
    const s = await signIn(agent.email!);
    const id = sessionIdOf(s);
    const signedInAt = (await prisma.session.findUniqueOrThrow({ where: { id } })).lastSeenAt.getTime();
    expect(await sessionService.authenticate(s.value, signedInAt + 30_000)).not.toBeNull();
    expect(await sessionService.authenticate(s.value, signedInAt + 90_000)).not.toBeNull();
    await expect.poll(async () => (await prisma.session.findUniqueOrThrow({ where: { id } })).lastSeenAt.getTime()).toBe(signedInAt + 90_000);
    expect(await sessionService.authenticate(s.value, signedInAt + 120_000)).not.toBeNull();
    expect((await prisma.session.findUniqueOrThrow({ where: { id } })).lastSeenAt.getTime()).toBe(signedInAt + 90_000);
  });

  it('treats a malformed or unknown cookie as no session', async () => {
    for (const cookie of ['session=', 'session=short', `session=${'A'.repeat(43)}`, 'session=%00%ff', 'other=1']) {
      const res = await api('GET', `/graphql?query=${encodeURIComponent(VIEWER)}`, { headers: { cookie } });
      expect(res.status).toBe(200);
      expect(res.body.data.viewer).toBeNull();
    }
  });
});

describe('API keys in the settings: administrators only, never keys', () => {
  let ws: Workspace;
  let admin: Session;
  beforeAll(async () => {
    ws = await createTestWorkspace();
    admin = await signIn(ws.admin.email!);
  });

  const LIST = `{ apiKeys { edges { node { id name prefix role { id name } scopes expiresAt lastUsedAt revokedAt createdAt } } pageInfo { hasNextPage endCursor } } }`;
  const CREATE = `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { value apiKey { id name prefix role { id name } scopes expiresAt } } }`;

  it('lets an administrator create a key whose value works on GET /public/v1/me and is listed without its value', async () => {
    expect(admin.viewer).toMatchObject({ id: ws.admin.id, isAdmin: true, role: { id: ws.roles.admin.id, name: 'Administrator' } });
    const created = await gql(CREATE, {
      session: admin,
      variables: { input: { name: 'Zapier', roleId: ws.roles.agent.id, scopes: ['tickets:read', 'boards:read'], expiresAt: '2099-01-01T00:00:00Z' } },
    });
    expect(created.body.errors).toBeUndefined();
    const { value, apiKey } = created.body.data.createApiKey;
    expect(value).toMatch(/^svc_[A-Za-z0-9]{10}_[A-Za-z0-9_-]{43}$/);
    expect(apiKey).toEqual({
      id: expect.any(Number),
      name: 'Zapier',
      prefix: value.slice(0, 14),
      role: { id: ws.roles.agent.id, name: 'Agent' },
      scopes: ['tickets:read', 'boards:read'],
      expiresAt: '2099-01-01T00:00:00.000Z',
    });

    const me = await api('GET', '/me', { key: value });
    expect(me.status).toBe(200);
    expect(me.body.apiKey).toEqual({ id: apiKey.id, name: 'Zapier', prefix: apiKey.prefix, scopes: ['tickets:read', 'boards:read'] });
    expect(me.body.serviceUser.roleId).toBe(ws.roles.agent.id);

    await expect.poll(async () => (await gql(LIST, { session: admin })).body.data.apiKeys.edges.find((e: any) => e.node.id === apiKey.id)?.node.lastUsedAt).not.toBeNull();
    const list = await gql(LIST, { session: admin });
    expect(list.text).not.toContain(value.slice(15));
    const listed = list.body.data.apiKeys.edges.find((e: any) => e.node.id === apiKey.id).node;
    expect(listed).toEqual({
      ...apiKey,
      lastUsedAt: expect.any(String),
      revokedAt: null,
      createdAt: expect.any(String),
    });
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(listed.createdAt));
  });

  it('lists newest first, pages, and shows a revoked key with revokedAt', async () => {
    const a = await ws.key({ name: 'older' });
    const b = await ws.key({ name: 'newer' });
    const revoke = await gql(`mutation { revokeApiKey(id: ${a.record.id}) }`, { session: admin });
    expect(revoke.body.data.revokeApiKey).toBe(true);
    expect((await api('GET', '/me', { key: a.value })).status).toBe(401);

    const page1 = await gql(`{ apiKeys(first: 1) { edges { node { id } } pageInfo { hasNextPage endCursor } } }`, { session: admin });
    expect(page1.body.data.apiKeys.edges.map((e: any) => e.node.id)).toEqual([b.record.id]);
    expect(page1.body.data.apiKeys.pageInfo.hasNextPage).toBe(true);
    const page2 = await gql(`query($after: String) { apiKeys(first: 1, after: $after) { edges { node { id revokedAt } } } }`, {
      session: admin,
      variables: { after: page1.body.data.apiKeys.pageInfo.endCursor },
    });
    expect(page2.body.data.apiKeys.edges).toEqual([{ node: { id: a.record.id, revokedAt: expect.any(String) } }]);

    const again = await gql(`mutation { revokeApiKey(id: ${a.record.id}) }`, { session: admin });
    expect(errorOf(again).extensions.code).toBe('not_found');
  });

  it('shows a workspace only its own keys', async () => {
    const other = await createTestWorkspace('Other');
    const foreign = await other.key();
    const list = await gql(LIST, { session: admin });
    expect(list.body.data.apiKeys.edges.map((e: any) => e.node.id)).not.toContain(foreign.record.id);
    const revoke = await gql(`mutation { revokeApiKey(id: ${foreign.record.id}) }`, { session: admin });
    expect(errorOf(revoke).extensions.code).toBe('not_found');
    expect((await api('GET', '/me', { key: foreign.value })).status).toBe(200);
  });

  it('answers forbidden (403) to a signed-in non-administrator', async () => {
    const agent = await createAgent(ws);
    const s = await signIn(agent.email!);
    const key = await ws.key();
    for (const [query, variables] of [
      [LIST, undefined],
      [CREATE, { input: { name: 'x', roleId: ws.roles.agent.id, scopes: ['tickets:read'] } }],
      [`mutation { revokeApiKey(id: ${key.record.id}) }`, undefined],
    ] as const) {
      const res = await gql(query, { session: s, variables });
      expect(res.status).toBe(200);
      expect(res.body.data).toBeNull();
      expect(errorOf(res).extensions).toEqual({ code: 'forbidden', status: 403 });
    }
    expect((await api('GET', '/me', { key: key.value })).status).toBe(200);
  });

  it('refuses API keys, even an administrator-role key with every scope', async () => {
    const key = await ws.key({ role: ws.roles.admin.id });
    const victim = await ws.key();
    for (const [query, variables] of [
      [LIST, undefined],
      [CREATE, { input: { name: 'minted', roleId: ws.roles.admin.id, scopes: ['tickets:read'] } }],
      [`mutation { revokeApiKey(id: ${victim.record.id}) }`, undefined],
    ] as const) {
      const res = await gql(query, { key: key.value, variables });
      expect(errorOf(res)).toMatchObject({ message: expect.stringMatching(/API keys cannot manage API keys/), extensions: { code: 'forbidden', status: 403 } });
    }
    expect((await api('GET', '/me', { key: victim.value })).status).toBe(200);
  });

  it('asks anonymous callers to sign in', async () => {
    const res = await gql(LIST);
    expect(errorOf(res).extensions).toEqual({ code: 'unauthenticated', status: 401 });
  });
});
