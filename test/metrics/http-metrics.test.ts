// /metrics on the HTTP app: a REST request, a GraphQL operation and a rate-limit refusal move
// their series, labelled by route template (never the raw path); the token and where the
// endpoint is served.
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { createAddressRateLimiter } from '../../src/rate-limit/address-rate-limiter.ts';
import { metricsOnPublicPort, metricsRoutes } from '../../src/http/metrics-endpoint.ts';
import { createTestWorkspace } from '../support/fixtures.ts';
import { sample, samples } from './scrape.ts';

type App = ReturnType<typeof createApp>;

async function scrape(app: { fetch(request: Request): Response | Promise<Response> }) {
  const res = await app.fetch(new Request('http://localhost/metrics'));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return samples(await res.text());
}

describe('metrics of the HTTP app', () => {
  let app: App;
  let key: string;
  beforeAll(async () => {
    const ws = await createTestWorkspace();
    key = (await ws.key()).value;
    app = createApp({ metrics: true });
  });
  const call = (path: string, init: RequestInit = {}) => app.fetch(new Request(`http://localhost${path}`, init));
  const graphql = (query: string, operationName?: string) =>
    call('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, operationName }),
    });

  it('counts and times a REST request by its route template, method and status', async () => {
    const route = { route: '/public/v1/tickets/:id', method: 'GET' };
    const before = await scrape(app);
    const res = await call('/public/v1/tickets/987654', { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(404);
    const after = await scrape(app);
    expect(sample(after, 'http_requests_total', { ...route, status: '404' }) - sample(before, 'http_requests_total', { ...route, status: '404' })).toBe(1);
    expect(sample(after, 'http_request_duration_seconds_count', route) - sample(before, 'http_request_duration_seconds_count', route)).toBe(1);
    expect(sample(after, 'http_request_duration_seconds_sum', route)).toBeGreaterThan(sample(before, 'http_request_duration_seconds_sum', route));
    expect(sample(after, 'http_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(sample(after, 'http_request_duration_seconds_count', route));
    // The scrape counts itself, too.
    expect(sample(after, 'http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1);
    expect([...after.keys()].some((k) => k.includes('987654'))).toBe(false);
  });

  it('gives paths no route matched one label, and the API prefix its catch-all template', async () => {
    const before = await scrape(app);
    expect((await call('/public/v1/no/such/thing-1', { headers: { authorization: `Bearer ${key}` } })).status).toBe(404);
    expect((await call('/public/v1/no/such/thing-2', { headers: { authorization: `Bearer ${key}` } })).status).toBe(404);
    const after = await scrape(app);
    const catchAll = { route: '/public/v1/*', method: 'GET', status: '404' };
    expect(sample(after, 'http_requests_total', catchAll) - sample(before, 'http_requests_total', catchAll)).toBe(2);
    expect([...after.keys()].some((k) => k.includes('thing-'))).toBe(false);

    await call('/elsewhere-1', { method: 'DELETE' });
    const unmatched = { route: 'unmatched', method: 'DELETE' };
    expect(sample(await scrape(app), 'http_request_duration_seconds_count', unmatched) - sample(after, 'http_request_duration_seconds_count', unmatched)).toBe(1);
  });

  it('counts GraphQL operations by name and outcome', async () => {
    const before = await scrape(app);
    // Names of the service's own clients (the route table's and the settings UI's) are labels.
    expect((await graphql('query Viewer { me { __typename } }')).status).toBe(200);
    expect((await graphql('query Viewer { me { __typename } }')).status).toBe(200);
    await graphql('query getTicket { ticket(id: 987654) { id } }');
    await graphql('query Unparsable { me {');
    await graphql('query A { me { __typename } } query Roles { me { __typename } }', 'Roles');
    // Any other name is `other`: a caller cannot mint labels.
    for (let i = 0; i < 3; i++) await graphql(`query Made${i}_${Date.now()} { me { __typename } }`);
    const after = await scrape(app);
    const moved = (operation: string, outcome: string) =>
      sample(after, 'graphql_operations_total', { operation, outcome }) - sample(before, 'graphql_operations_total', { operation, outcome });
    expect(moved('Viewer', 'success')).toBe(2);
    expect(moved('getTicket', 'error')).toBe(1);
    // Never executed: named by what the caller asked for, which was nothing here.
    expect(moved('anonymous', 'rejected')).toBe(1);
    expect(moved('Roles', 'success')).toBe(1);
    expect(moved('other', 'success')).toBe(3);
    expect([...after.keys()].filter((k) => k.includes('operation="Made'))).toEqual([]);
    const route = { route: '/graphql', method: 'POST', status: '200' };
    expect(sample(after, 'http_requests_total', route) - sample(before, 'http_requests_total', route)).toBeGreaterThanOrEqual(4);
  });

  it('counts rate-limit refusals by the limit that refused', async () => {
    // One anonymous request a minute per address, so that the second is refused.
    const limited = createApp({ metrics: true, anonymousRateLimiter: createAddressRateLimiter({ requestsPerMinute: 1 }) });
    const before = await scrape(limited);
    const answers = [await limited.fetch(new Request('http://localhost/public/v1/openapi.json')), await limited.fetch(new Request('http://localhost/public/v1/openapi.json'))];
    expect(answers.map((r) => r.status)).toEqual([200, 429]);
    const after = await scrape(limited);
    expect(sample(after, 'rate_limit_refusals_total', { limit: 'address' }) - sample(before, 'rate_limit_refusals_total', { limit: 'address' })).toBe(1);
    const refused = { route: '/public/v1/openapi.json', method: 'GET', status: '429' };
    expect(sample(after, 'http_requests_total', refused) - sample(before, 'http_requests_total', refused)).toBe(1);
  });

  it('includes the default process metrics', async () => {
    const all = await scrape(app);
    expect(sample(all, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(all, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });
});

describe('where /metrics is served, and to whom', () => {
  it('answers only the bearer of METRICS_TOKEN when one is set', async () => {
    const token = 'a-metrics-token-of-some-length';
    const routes = metricsRoutes(token);
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${token}x`, token]) {
      const res = await routes.fetch(new Request('http://localhost/metrics', { headers: authorization ? { authorization } : {} }));
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'invalid_token' });
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
    const res = await routes.fetch(new Request('http://localhost/metrics', { headers: { authorization: `Bearer ${token}` } }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('# TYPE http_requests_total counter');
  });

  it('is on the public port outside production, in production only with a token, and never with its own port', () => {
    const on = (isProduction: boolean, metrics: { port?: number; token?: string }) => metricsOnPublicPort({ isProduction, metrics: { port: undefined, token: undefined, ...metrics } });
    expect(on(false, {})).toBe(true);
    expect(on(true, {})).toBe(false);
    expect(on(true, { token: 'a-metrics-token-of-some-length' })).toBe(true);
    expect(on(false, { port: 9464 })).toBe(false);
    expect(on(true, { port: 9464, token: 'a-metrics-token-of-some-length' })).toBe(false);
  });

  it('is not on the public port when the app is built without it', async () => {
    const app = createApp({ metrics: false });
    expect((await app.fetch(new Request('http://localhost/metrics'))).status).toBe(404);
  });
});
