// Per-key request limits on REST and GraphQL, in process (docs/integrators/api-conventions.md, "Rate limits").
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { createApp } from '../../src/http/app.ts';
import { prisma } from '../../src/db/db.ts';
import { loadConfig } from '../../src/config.ts';

const LIMIT = 4;
// Keys of this file get a small limit (the key's limit comes from its ApiKey row, which takes
// the configured default when created).
loadConfig({ ...process.env, DEFAULT_REQUESTS_PER_MINUTE: String(LIMIT) });
const POLICY = `"default";q=${LIMIT};w=60`;
const RATE = /^"default";r=(\d+);t=(\d+)$/;

function remainingOf(res: { headers: Headers }) {
  const m = RATE.exec(res.headers.get('ratelimit') ?? '');
  expect(m, `RateLimit header: ${res.headers.get('ratelimit')}`).not.toBeNull();
  const reset = Number(m![2]);
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
  return Number(m![1]);
}

function expectRateLimited(res: Awaited<ReturnType<typeof api>>) {
  expect(res.status).toBe(429);
  expect(res.headers.get('ratelimit-policy')).toBe(POLICY);
  expect(remainingOf(res)).toBe(0);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('rate limits per API key', () => {
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    ws = await createTestWorkspace('Rate limits');
    app = createApp();
  });

  it("takes the limit from the key's requestsPerMinute", async () => {
    const key = await ws.key();
    const me = await api('GET', '/me', { app, key: key.value });
    expect(me.body.limits.requestsPerMinute).toBe(LIMIT);
  });

  it('puts RateLimit-Policy and RateLimit on success and on every error, counting each call', async () => {
    const key = await ws.key({ scopes: ['users:read'] });
    const ok = await api('GET', '/me', { app, key: key.value });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(remainingOf(ok)).toBe(3);

    const noSuchRecord = await api('GET', '/users/0', { app, key: key.value });
    expect(noSuchRecord.status).toBe(404);
    expect(noSuchRecord.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(remainingOf(noSuchRecord)).toBe(2);

    const noScope = await api('GET', '/boards', { app, key: key.value });
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(remainingOf(noScope)).toBe(1);

    const wrongMethod = await api('DELETE', '/me', { app, key: key.value });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(remainingOf(wrongMethod)).toBe(0);

    const limited = await api('GET', '/nowhere', { app, key: key.value });
    expectRateLimited(limited);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited', requestId: limited.headers.get('x-request-id') });
  });

  it('a burst of twice the limit lets exactly the limit through', async () => {
    const key = await ws.key();
    const answers = await Promise.all(Array.from({ length: 2 * LIMIT }, () => api('GET', '/me', { app, key: key.value })));
    const passed = answers.filter((a) => a.status === 200);
    expect(passed).toHaveLength(LIMIT);
    expect(passed.map(remainingOf).sort()).toEqual([0, 1, 2, 3]);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expectRateLimited(a);
      expect(a.body.code).toBe('rate_limited');
    }
  });

  it('counts each key on its own', async () => {
    const busy = await ws.key();
    const quiet = await ws.key();
    for (let i = 0; i < LIMIT; i++) expect((await api('GET', '/me', { app, key: busy.value })).status).toBe(200);
    expectRateLimited(await api('GET', '/me', { app, key: busy.value }));
    const other = await api('GET', '/me', { app, key: quiet.value });
    expect(other.status).toBe(200);
    expect(remainingOf(other)).toBe(LIMIT - 1);
  });

  it('applies the same limit to GraphQL calls made with the key, with the same headers', async () => {
    const key = await ws.key();
    const query = { query: '{ me { apiKey { id } } }' };
    expect((await api('GET', '/me', { app, key: key.value })).status).toBe(200);
    expect((await api('GET', '/me', { app, key: key.value })).status).toBe(200);

    const gql = await api('POST', '/graphql', { app, key: key.value, body: query });
    expect(gql.status).toBe(200);
    expect(gql.body.data.me.apiKey.id).toBe(key.record.id);
    expect(gql.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(remainingOf(gql)).toBe(1);

    const invalid = await api('POST', '/graphql', { app, key: key.value, body: { query: '{ nope }' } });
    expect(invalid.body.errors[0].message).toMatch(/nope/);
    expect(invalid.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(remainingOf(invalid)).toBe(0);

    const limited = await api('POST', '/graphql', { app, key: key.value, body: query });
    expectRateLimited(limited);
    expect(limited.body.errors[0].extensions).toMatchObject({ code: 'rate_limited', status: 429 });
    expectRateLimited(await api('GET', '/me', { app, key: key.value }));
  });

  it('counts each mutation field in GraphQL as a request, so aliases cannot multiply the request allowance', async () => {
    const key = await ws.key({ scopes: ['tickets:write'] });
    const support = ws.boards.find((b) => b.name === 'Support')!;
    const product = support.fields.find((f) => f.name === 'Product')!;
    const input = `{ boardId: "${support.id}", subject: "Alias ${key.record.id}", requesterEmail: "ana@example.test", fields: [{ fieldId: "${product.id}", value: "Web" }] }`;
    const aliases = Array.from({ length: LIMIT + 1 }, (_, i) => `t${i}: createTicket(input: ${input}) { id }`);
    const res = await api('POST', '/graphql', { app, key: key.value, body: { query: `mutation { ${aliases.join(' ')} }` } });
    expectRateLimited(res);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions.code).toBe('rate_limited');
    expect(await prisma.ticket.count({ where: { subject: `Alias ${key.record.id}` } })).toBe(0);
  });

  it('does not count requests without a valid key (there is no key to count against)', async () => {
    const res = await api('GET', '/me', { app, key: 'svc_AAAAAAAAAA_' + 'A'.repeat(43) });
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit')).toBeNull();
  });

  it('keeps separate counts in separate app instances without Redis', async () => {
    const key = await ws.key();
    const other = createApp();
    for (let i = 0; i < LIMIT; i++) expect((await api('GET', '/me', { app, key: key.value })).status).toBe(200);
    expectRateLimited(await api('GET', '/me', { app, key: key.value }));
    expect((await api('GET', '/me', { app: other, key: key.value })).status).toBe(200);
  });
});
