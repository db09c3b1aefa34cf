// GET /webhooks/{id}/stats and the webhookDeliveryStats query: exact counts, rates, percentiles
// and buckets for attempts seeded at the edges of the UTC buckets, under a fixed clock.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { workspaceRepository } from '../../../src/workspaces/workspace.repository.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { createSubscription, seedAttempts } from '../fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

const NOW = new Date('2026-11-20T10:30:00.000Z');
const HOOK = 'https://hooks.example.com/stats';

const zeros = (n: number) => Array.from({ length: n }, () => ({ attempts: 0, succeeded: 0, failed: 0 }));
const counts = (series: { attempts: number; succeeded: number; failed: number }[]) => series.map(({ attempts, succeeded, failed }) => ({ attempts, succeeded, failed }));

describe('webhook delivery statistics', () => {
  let ws: Workspace;
  let key: string;
  let subscription: string;
  let quiet: string;

  beforeAll(async () => {
    // Only Date: the buckets follow the clock, the database and timers run as usual.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    ws = await createTestWorkspace();
    key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
    subscription = (await createSubscription(ws, { url: HOOK })).id;
    quiet = (await createSubscription(ws, { url: HOOK })).id;
    await seedAttempts(ws, subscription, [
      ['2026-10-21T23:59:59.999Z', 'succeeded', 7], // before 30d
      ['2026-10-22T00:00:00.000Z', 'succeeded', 10], // first day of 30d
      ['2026-11-13T23:59:59.999Z', 'failed', 9], // before 7d
      ['2026-11-14T00:00:00.000Z', 'failed', 1000], // first day of 7d
      ['2026-11-19T10:59:59.999Z', 'succeeded', 50], // before 24h
      ['2026-11-19T11:00:00.000Z', 'succeeded', 100], // first hour of 24h
      ['2026-11-19T11:59:59.999Z', 'failed', 200], // still the first hour
      ['2026-11-19T12:00:00.000Z', 'succeeded', 300], // second hour
      ['2026-11-20T10:29:59.000Z', 'succeeded', 400], // current hour
      ['2026-11-20T11:00:00.000Z', 'succeeded', 500], // after the current hour (a skewed clock), still today
    ]);
    // Another subscription's attempts count for it alone.
    await seedAttempts(ws, (await createSubscription(ws, { url: HOOK })).id, [['2026-11-20T10:00:00.000Z', 'failed', 5000]]);
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it('24h: hourly UTC buckets from the hour 23 hours ago to the current one', async () => {
    const res = await api('GET', `/webhooks/${subscription}/stats?period=24h`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subscriptionId: subscription,
      period: '24h',
      bucket: 'hour',
      from: '2026-11-19T11:00:00.000Z',
      to: '2026-11-20T11:00:00.000Z',
      attempts: 4,
      succeeded: 3,
      failed: 1,
      successRate: 0.75,
      // percentile_cont over 100, 200, 300, 400.
      durationMs: { p50: 250, p95: 385, p99: 397 },
    });
    expect(res.body.series).toHaveLength(24);
    expect(res.body.series[0].start).toBe('2026-11-19T11:00:00.000Z');
    expect(res.body.series[23].start).toBe('2026-11-20T10:00:00.000Z');
    const expected = zeros(24);
    expected[0] = { attempts: 2, succeeded: 1, failed: 1 };
    expected[1] = { attempts: 1, succeeded: 1, failed: 0 };
    expected[23] = { attempts: 1, succeeded: 1, failed: 0 };
    expect(counts(res.body.series)).toEqual(expected);
  });

  it('24h is the default period', async () => {
    const res = await api('GET', `/webhooks/${subscription}/stats`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ period: '24h', attempts: 4 });
  });

  it('7d: daily UTC buckets, today last', async () => {
    const res = await api('GET', `/webhooks/${subscription}/stats?period=7d`, { key });
    expect(res.body).toMatchObject({
      period: '7d',
      bucket: 'day',
      from: '2026-11-14T00:00:00.000Z',
      to: '2026-11-21T00:00:00.000Z',
      attempts: 7,
      succeeded: 5,
      failed: 2,
      successRate: 5 / 7,
      // percentile_cont over 50, 100, 200, 300, 400, 500, 1000.
      durationMs: { p50: 300, p95: 850, p99: 970 },
    });
    expect(res.body.series.map((b: { start: string }) => b.start)).toEqual(
      ['14', '15', '16', '17', '18', '19', '20'].map((d) => `2026-11-${d}T00:00:00.000Z`),
    );
    expect(counts(res.body.series)).toEqual([
      { attempts: 1, succeeded: 0, failed: 1 },
      ...zeros(4),
      { attempts: 4, succeeded: 3, failed: 1 },
      { attempts: 2, succeeded: 2, failed: 0 },
    ]);
  });

  it('30d: thirty daily buckets', async () => {
    const res = await api('GET', `/webhooks/${subscription}/stats?period=30d`, { key });
    expect(res.body).toMatchObject({ from: '2026-10-22T00:00:00.000Z', to: '2026-11-21T00:00:00.000Z', attempts: 9, succeeded: 6, failed: 3 });
    expect(res.body.series).toHaveLength(30);
    expect(counts(res.body.series)[0]).toEqual({ attempts: 1, succeeded: 1, failed: 0 });
    expect(res.body.series[29].start).toBe('2026-11-20T00:00:00.000Z');
  });

  it('a subscription without attempts: zeros, and no rate or percentiles', async () => {
    const res = await api('GET', `/webhooks/${quiet}/stats?period=24h`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ attempts: 0, succeeded: 0, failed: 0, successRate: null, durationMs: { p50: null, p95: null, p99: null } });
    expect(counts(res.body.series)).toEqual(zeros(24));
  });

  it('refuses an unknown period, other query parameters, and callers who may not see the subscription', async () => {
    const period = await api('GET', `/webhooks/${subscription}/stats?period=1h`, { key });
    expect(period.status).toBe(422);
    expect(period.body.code).toBe('validation_failed');
    expect(period.body.errors[0].path).toBe('query/period');
    expect((await api('GET', `/webhooks/${subscription}/stats?from=2026-11-01`, { key })).status).toBe(422);

    const other = await createTestWorkspace();
    const otherKey = (await other.key({ scopes: ['webhooks:manage'] })).value;
    const foreign = await api('GET', `/webhooks/${subscription}/stats`, { key: otherKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');
    expect((await api('GET', '/webhooks/wh_01ARZ3NDEKTSV4RRFFQ69G5FAV/stats', { key })).status).toBe(404);

    const unscoped = await api('GET', `/webhooks/${subscription}/stats`, { key: (await ws.key({ scopes: ['tickets:read'] })).value });
    expect(unscoped.status).toBe(403);
    expect(unscoped.body.code).toBe('insufficient_scope');
  });

  it('a role that sees some boards only sees statistics of subscriptions limited to them', async () => {
    const [visible, hidden] = ws.boards;
    await prisma.role.update({ where: { id: ws.roles.agent.id }, data: { permissions: { push: 'webhooks.manage' } } });
    await workspaceRepository.restrictRole(ws.roles.agent.id, [visible.id]);
    const limited = (await ws.key({ scopes: ['webhooks:manage'], role: ws.roles.agent.id })).value;
    const mine = await createSubscription(ws, { url: HOOK, boardIds: [visible.id] });
    const theirs = await createSubscription(ws, { url: HOOK, boardIds: [hidden.id] });
    expect((await api('GET', `/webhooks/${mine.id}/stats`, { key: limited })).status).toBe(200);
    expect((await api('GET', `/webhooks/${theirs.id}/stats`, { key: limited })).status).toBe(404);
    expect((await api('GET', `/webhooks/${subscription}/stats`, { key: limited })).status).toBe(404);
  });

  it('answers the same through GraphQL', async () => {
    const query = `query($id: String!, $period: String) {
      webhookDeliveryStats(subscriptionId: $id, period: $period) { period bucket attempts succeeded failed successRate durationMs { p50 p95 p99 } series { start attempts } }
    }`;
    const res = await api('POST', '/graphql', { key, body: { query, variables: { id: subscription, period: '7d' } } });
    expect(res.status).toBe(200);
    const stats = res.body.data.webhookDeliveryStats;
    expect(stats).toMatchObject({ period: '7d', bucket: 'day', attempts: 7, succeeded: 5, failed: 2, durationMs: { p50: 300, p95: 850, p99: 970 } });
    expect(stats.series.map((b: { attempts: number }) => b.attempts)).toEqual([1, 0, 0, 0, 0, 4, 2]);

    const bad = await api('POST', '/graphql', { key, body: { query, variables: { id: subscription, period: 'forever' } } });
    expect(bad.body.errors[0].extensions.code).toBe('validation_failed');
    expect(bad.body.errors[0].extensions.errors[0].path).toBe('/period');
  });
});
