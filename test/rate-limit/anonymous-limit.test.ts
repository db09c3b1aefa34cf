// Requests without a valid key or session, limited per client address (README, "Rate limits").
// app.fetch() is given the `incoming` binding @hono/node-server passes, so each test picks the
// socket address it comes from; one test goes through a real socket.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestWorkspace } from '../support/fixtures.ts';
import { createApp } from '../../src/http/app.ts';
import { createAddressRateLimiter } from '../../src/rate-limit/address-rate-limiter.ts';
import { limitKeyOf } from '../../src/rate-limit/client-address.ts';
import { parseConfig } from '../../src/config.ts';

const LIMIT = 3;
let nextAddress = 10;
/** A documentation address (TEST-NET-3) no other test uses. */
const freshAddress = () => `203.0.113.${nextAddress++}`;

type App = ReturnType<typeof createApp>;
const limitedApp = (trustedProxies: string[] = []) =>
  createApp({ anonymousRateLimiter: createAddressRateLimiter({ requestsPerMinute: LIMIT }), trustedProxies });

/** `remoteAddress` as a string is a new socket per call; as a socket object, the same connection again. */
async function from(app: App, remoteAddress: string | { remoteAddress: string } | undefined, path: string, init: RequestInit = {}) {
  const socket = typeof remoteAddress === 'string' ? { remoteAddress } : remoteAddress;
  const env = socket === undefined ? undefined : { incoming: { socket } };
  const res = await app.fetch(new Request(`http://localhost${path}`, init), env);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

function expectLimited(res: Awaited<ReturnType<typeof from>>) {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-policy')).toBe(`"anonymous";q=${LIMIT};w=60`);
}

describe('anonymous requests per client address', () => {
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  beforeAll(async () => {
    ws = await createTestWorkspace('Anonymous limits');
  });

  it('answers 401s until the limit, then 429 rate_limited as problem+json with Retry-After', async () => {
    const app = limitedApp();
    const address = freshAddress();
    for (let i = 0; i < LIMIT; i++) expect((await from(app, address, '/public/v1/me')).status).toBe(401);
    const limited = await from(app, address, '/public/v1/me');
    expectLimited(limited);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect(limited.json()).toMatchObject({ status: 429, code: 'rate_limited', requestId: limited.headers.get('x-request-id') });
    // Wrong keys count the same as none.
    expectLimited(await from(app, address, '/public/v1/me', { headers: { authorization: 'Bearer svc_AAAAAAAAAA_' + 'A'.repeat(43) } }));
  });

  it('counts every path that takes no credentials, and leaves /healthz alone', async () => {
    const app = limitedApp();
    const address = freshAddress();
    const paths = ['/public/v1/openapi.json', '/public/v1/docs', '/public/v1/docs/assets/scalar.js', '/settings/', '/nowhere', '/public/v1/nowhere', '/graphql?query=%7B__typename%7D'];
    const answers = [];
    for (const path of paths) answers.push((await from(app, address, path)).status);
    expect(answers.slice(0, LIMIT).every((s) => s !== 429)).toBe(true);
    expect(answers.slice(LIMIT)).toEqual(paths.slice(LIMIT).map(() => 429));
    for (let i = 0; i < 2 * LIMIT; i++) expect((await from(app, address, '/healthz')).status).toBe(200);
  });

  it('answers GraphQL over the limit in the GraphQL error shape', async () => {
    const app = limitedApp();
    const address = freshAddress();
    const post = () =>
      from(app, address, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    for (let i = 0; i < LIMIT; i++) expect((await post()).status).toBe(200);
    const limited = await post();
    expectLimited(limited);
    expect(limited.json()).toEqual({ errors: [{ message: expect.stringContaining('retry in'), extensions: { code: 'rate_limited', status: 429 } }] });
  });

  it('counts each address on its own, and never counts keys it has resolved', async () => {
    const app = limitedApp();
    const busy = freshAddress();
    for (let i = 0; i < LIMIT; i++) await from(app, busy, '/public/v1/me');
    expectLimited(await from(app, busy, '/public/v1/me'));
    expect((await from(app, freshAddress(), '/public/v1/me')).status).toBe(401);
    const key = await ws.key();
    // A key this process never resolved is counted before its lookup (stranger-credentials.test.ts): known first from elsewhere.
    expect((await from(app, freshAddress(), '/public/v1/me', { headers: { authorization: `Bearer ${key.value}` } })).status).toBe(200);
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await from(app, busy, '/public/v1/me', { headers: { authorization: `Bearer ${key.value}` } });
      expect(res.status).toBe(200);
    }
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const app = limitedApp();
    const address = freshAddress();
    for (let i = 0; i < LIMIT; i++) await from(app, address, '/public/v1/me', { headers: { 'x-forwarded-for': `198.51.100.${i}` } });
    expectLimited(await from(app, address, '/public/v1/me', { headers: { 'x-forwarded-for': '198.51.100.99' } }));
  });

  it("behind a trusted proxy counts the client it names, never an address the client wrote itself", async () => {
    const app = limitedApp(['10.0.0.0/8']);
    const proxy = '10.1.2.3';
    const client = freshAddress();
    for (let i = 0; i < LIMIT; i++) {
      // The client sends its own header; the proxy appends the address it saw.
      await from(app, proxy, '/public/v1/me', { headers: { 'x-forwarded-for': `192.0.2.${i}, ${client}` } });
    }
    expectLimited(await from(app, proxy, '/public/v1/me', { headers: { 'x-forwarded-for': client } }));
    // Another client behind the same proxy has its own count.
    expect((await from(app, proxy, '/public/v1/me', { headers: { 'x-forwarded-for': freshAddress() } })).status).toBe(401);
  });

  it('behind a trusted proxy, tells the clients of one kept-alive connection apart by the header each request brings', async () => {
    const app = limitedApp(['10.0.0.0/8']);
    // A proxy sends many clients' requests over one upstream connection: one socket, headers that change.
    const connection = { remoteAddress: '10.4.5.6' };
    const [first, second] = [freshAddress(), freshAddress()];
    for (let i = 0; i < LIMIT; i++) expect((await from(app, connection, '/public/v1/me', { headers: { 'x-forwarded-for': first } })).status).toBe(401);
    expectLimited(await from(app, connection, '/public/v1/me', { headers: { 'x-forwarded-for': first } }));
    expect((await from(app, connection, '/public/v1/me', { headers: { 'x-forwarded-for': second } })).status).toBe(401);
    // Without the header the request is the proxy's own, counted apart from both clients.
    expect((await from(app, connection, '/public/v1/me')).status).toBe(401);
    expectLimited(await from(app, connection, '/public/v1/me', { headers: { 'x-forwarded-for': first } }));
  });

  it('reads TRUSTED_PROXIES as a list, and refuses to start with an entry that is no address or range', () => {
    expect(parseConfig({}).auth.trustedProxies).toEqual([]);
    expect(parseConfig({ TRUSTED_PROXIES: '10.0.0.0/8, loopback,2001:db8::1' }).auth.trustedProxies).toEqual(['10.0.0.0/8', 'loopback', '2001:db8::1']);
    expect(() => parseConfig({ TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/TRUSTED_PROXIES/);
    expect(() => parseConfig({ TRUSTED_PROXIES: 'proxy.internal' })).toThrow(/TRUSTED_PROXIES/);
  });

  it('keys IPv4-mapped IPv6 addresses as IPv4, and IPv6 per /64', () => {
    expect(limitKeyOf('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(limitKeyOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(limitKeyOf('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(limitKeyOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('counts requests through a real socket by the socket address, apart from in-process calls', async () => {
    const app = limitedApp();
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (let i = 0; i < LIMIT; i++) expect((await fetch(`http://127.0.0.1:${port}/public/v1/me`)).status).toBe(401);
      const limited = await fetch(`http://127.0.0.1:${port}/public/v1/me`);
      expect(limited.status).toBe(429);
      // Calls without a socket share one count of their own.
      expect((await from(app, undefined, '/public/v1/me')).status).toBe(401);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
