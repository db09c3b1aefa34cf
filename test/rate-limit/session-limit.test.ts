// Signed-in people have a request limit as keys do (SESSION_REQUESTS_PER_MINUTE, per person: all of
// a person's sessions share it), and ticketActivityReport is priced by its window.
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { createRequestRateLimiter } from '../../src/rate-limit/request-rate-limiter.ts';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits.ts';
import { REPORT_DAY_COST } from '../../src/graphql/complexity.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { signInAdmin } from '../support/limits.ts';

const LIMIT = 3;
const query = { query: '{ workspace { name } }' };

describe('per-person request limit of sessions', () => {
  const app = createApp({ rateLimiter: createRequestRateLimiter({ sessionRequestsPerMinute: LIMIT }) });
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;

  beforeAll(async () => {
    ws = await createTestWorkspace('Session limit');
  });

  it(`allows ${LIMIT} requests a minute to one person across sessions, then answers 429 rate_limited`, async () => {
    const first = await signInAdmin(app, ws.admin.email!);
    const second = await signInAdmin(app, ws.admin.email!);
    const answers = [];
    for (let i = 0; i < LIMIT; i++) answers.push(await api('POST', '/graphql', { app, headers: i % 2 ? second : first, body: query }));
    for (const a of answers) expect(a.body.errors).toBeUndefined();
    expect(answers[0].headers.get('ratelimit-policy')).toBe(`"default";q=${LIMIT};w=60`);

    const over = await api('POST', '/graphql', { app, headers: second, body: query });
    expect(over.status).toBe(429);
    expect(over.body.errors[0].extensions.code).toBe('rate_limited');
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);

    // Another person is counted on their own.
    const other = await createTestWorkspace('Session limit, other');
    const otherSession = await signInAdmin(app, other.admin.email!);
    expect((await api('POST', '/graphql', { app, headers: otherSession, body: query })).body.errors).toBeUndefined();
  });
});

describe('ticketActivityReport priced by its window', () => {
  const report = 'query($from: DateTime!, $to: DateTime!) { ticketActivityReport(from: $from, to: $to) { channel ticketsCreated } }';
  const DAY = 24 * 60 * 60 * 1000;

  it('answers a year, refuses the whole history with 400 query_too_complex', async () => {
    const ws = await createTestWorkspace('Report cost');
    const key = (await ws.key({ scopes: ['tickets:read'] })).value;
    const to = new Date();
    const year = await api('POST', '/graphql', { app: createApp(), key, body: { query: report, variables: { from: new Date(to.getTime() - 366 * DAY), to } } });
    expect(year.body.errors).toBeUndefined();
    expect(year.body.data.ticketActivityReport).toEqual([]);

    const history = await api('POST', '/graphql', { app: createApp(), key, body: { query: report, variables: { from: '2000-01-01T00:00:00Z', to } } });
    expect(history.status).toBe(400);
    expect(history.body.errors[0].extensions.code).toBe('query_too_complex');
    expect(history.body.errors[0].message).toContain(`at most ${GRAPHQL_LIMITS.cost}`);
    expect(REPORT_DAY_COST * 366).toBeLessThanOrEqual(GRAPHQL_LIMITS.cost);
  });
});
