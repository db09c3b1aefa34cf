// A subscription's retry schedule through REST and GraphQL: created, read, changed and reset,
// hostile values refused with 422 validation_failed naming the member, the delivery log's
// `maxAttempts`; and the pure schedule functions with a shortened schedule.
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/config.ts';
import { prisma } from '../../../src/db/db.ts';
import { newId } from '../../../src/ids.ts';
import { DEFAULT_DELAYS_SECONDS, MAX_RETRY_SPAN_SECONDS, retryDelaysMs, retryScheduleView } from '../../../src/webhooks/message/retry-schedule.ts';
import { jitteredDelay, maxAttemptsOf, MAX_ATTEMPTS, remainingSpanMs, retryDelay } from '../../../src/webhooks/message/schedule.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { createDelivery } from '../fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

const URL_OK = 'https://93.184.216.34/ticketing';
const body = (extra: Record<string, unknown> = {}) => ({ url: URL_OK, events: ['ticket.created'], ...extra });
const DEFAULT_VIEW = { delaysSeconds: [60, 300, 1800, 7200, 28800, 86400], maxAttempts: 7, spanSeconds: 124_560, custom: false };
const SELECTION = 'id retrySchedule { delaysSeconds maxAttempts spanSeconds custom }';

describe('retry schedule: the pure functions', () => {
  it('the default is the contract’s seven attempts; a shortened schedule ends and caps Retry-After at its own span', () => {
    expect(DEFAULT_DELAYS_SECONDS).toEqual(DEFAULT_VIEW.delaysSeconds);
    expect(MAX_RETRY_SPAN_SECONDS).toBe(DEFAULT_VIEW.spanSeconds);
    expect(maxAttemptsOf()).toBe(MAX_ATTEMPTS);
    const delays = retryDelaysMs({ delaysSeconds: [90, 200] });
    expect(delays).toEqual([90_000, 200_000]);
    expect(maxAttemptsOf(delays)).toBe(3);
    expect(jitteredDelay(1, 0.5, delays)).toBe(90_000);
    expect(jitteredDelay(2, 0, delays)).toBe(180_000);
    expect(jitteredDelay(3, 0.5, delays)).toBeUndefined();
    expect(remainingSpanMs(1, delays)).toBe(290_000);
    // A receiver's Retry-After of an hour is cut to what remains of this schedule, not the default's.
    expect(retryDelay(1, 90_000, 3_600_000, delays)).toEqual({ delayMs: 290_000, retryAfterMs: 200_000 });
    expect(retryDelay(1, 60_000, 3_600_000).delayMs).toBe(3_600_000);
    // One attempt, no retry.
    expect(maxAttemptsOf(retryDelaysMs({ delaysSeconds: [] }))).toBe(1);
    expect(remainingSpanMs(1, [])).toBe(0);
  });

  it('reads anything unreadable on the row as the default', () => {
    for (const stored of [null, undefined, 'nonsense', '{"delaysSeconds":"60"}', { delaysSeconds: [1, 2, 3, 4, 5, 6, 7] }, { delaysSeconds: [-1] }, { delaysSeconds: [1.5] }, 42]) {
      expect(retryScheduleView(stored), JSON.stringify(stored)).toEqual(DEFAULT_VIEW);
    }
    expect(retryScheduleView('{"delaysSeconds":[60]}')).toEqual({ delaysSeconds: [60], maxAttempts: 2, spanSeconds: 60, custom: true });
  });
});

describe('retry schedule: the API', () => {
  let ws: Workspace;
  let key: string;

  beforeAll(async () => {
    ws = await createTestWorkspace();
    key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
  });

  it('shows the default, takes a shorter one on creation and change, and null resets it (REST)', async () => {
    const plain = await api('POST', '/webhooks', { key, body: body() });
    expect(plain.status).toBe(201);
    expect(plain.body.retrySchedule).toEqual(DEFAULT_VIEW);

    const short = await api('POST', '/webhooks', { key, body: body({ retrySchedule: { delaysSeconds: [60, 300] } }) });
    expect(short.status).toBe(201);
    expect(short.body.retrySchedule).toEqual({ delaysSeconds: [60, 300], maxAttempts: 3, spanSeconds: 360, custom: true });
    expect((await api('GET', `/webhooks/${short.body.id}`, { key })).body.retrySchedule).toEqual(short.body.retrySchedule);
    const listed = (await api('GET', '/webhooks', { key })).body.data.find((s: { id: string }) => s.id === short.body.id);
    expect(listed.retrySchedule.maxAttempts).toBe(3);

    // One attempt and no retry; then a single long retry, within the default's span.
    const once = await api('PATCH', `/webhooks/${short.body.id}`, { key, body: { retrySchedule: { delaysSeconds: [] } } });
    expect(once.status).toBe(200);
    expect(once.body.retrySchedule).toEqual({ delaysSeconds: [], maxAttempts: 1, spanSeconds: 0, custom: true });
    const long = await api('PATCH', `/webhooks/${short.body.id}`, { key, body: { retrySchedule: { delaysSeconds: [86_400, 38_160] } } });
    expect(long.status).toBe(200);
    expect(long.body.retrySchedule).toMatchObject({ maxAttempts: 3, spanSeconds: MAX_RETRY_SPAN_SECONDS });
    // Another member's change leaves it be; null goes back to the default.
    expect((await api('PATCH', `/webhooks/${short.body.id}`, { key, body: { description: 'x' } })).body.retrySchedule.maxAttempts).toBe(3);
    const reset = await api('PATCH', `/webhooks/${short.body.id}`, { key, body: { retrySchedule: null } });
    expect(reset.status).toBe(200);
    expect(reset.body.retrySchedule).toEqual(DEFAULT_VIEW);
    expect((await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: short.body.id } })).retrySchedule).toBeNull();
  });

  it('refuses hostile schedules with 422 validation_failed naming the member, on creation and change', async () => {
    const floor = config.webhooks.retryMinDelaySeconds;
    expect(floor).toBe(60);
    const { body: s } = await api('POST', '/webhooks', { key, body: body() });
    const cases: [unknown, string][] = [
      [{ delaysSeconds: [60, 60, 60, 60, 60, 60, 60] }, '/retrySchedule/delaysSeconds'], // more steps than the default
      [{ delaysSeconds: Array.from({ length: 10_000 }, () => 60) }, '/retrySchedule/delaysSeconds'],
      [{ delaysSeconds: [-60] }, '/retrySchedule/delaysSeconds/0'],
      [{ delaysSeconds: [0] }, '/retrySchedule/delaysSeconds/0'],
      [{ delaysSeconds: [60, 59] }, '/retrySchedule/delaysSeconds/1'], // below the operator's minimum
      [{ delaysSeconds: [86_401] }, '/retrySchedule/delaysSeconds/0'], // longer than the default's longest delay
      [{ delaysSeconds: [86_400, 38_161] }, '/retrySchedule/delaysSeconds'], // longer span than the default
      [{ delaysSeconds: [1e300] }, '/retrySchedule/delaysSeconds/0'],
      [{ delaysSeconds: [60.5] }, '/retrySchedule/delaysSeconds/0'],
      [{ delaysSeconds: ['60'] }, '/retrySchedule/delaysSeconds/0'],
      [{ delaysSeconds: '60' }, '/retrySchedule/delaysSeconds'],
      [{ delaysSeconds: [null] }, '/retrySchedule/delaysSeconds/0'],
      [{ delaysSeconds: [[60]] }, '/retrySchedule/delaysSeconds/0'],
      [{}, '/retrySchedule/delaysSeconds'],
      [{ delaysSeconds: [60], maxAttempts: 2 }, '/retrySchedule/maxAttempts'],
      ['fast', '/retrySchedule'],
      [[60, 300], '/retrySchedule'],
    ];
    for (const [retrySchedule, path] of cases) {
      const label = JSON.stringify(retrySchedule).slice(0, 60);
      const created = await api('POST', '/webhooks', { key, body: body({ retrySchedule }) });
      expect(created.status, label).toBe(422);
      expect(created.body.code, label).toBe('validation_failed');
      expect(created.body.errors.map((e: { path: string }) => e.path), label).toContain(path);
      const changed = await api('PATCH', `/webhooks/${s.id}`, { key, body: { retrySchedule } });
      expect(changed.status, label).toBe(422);
      expect(changed.body.errors.map((e: { path: string }) => e.path), label).toContain(path);
    }
    const below = await api('POST', '/webhooks', { key, body: body({ retrySchedule: { delaysSeconds: [30] } }) });
    expect(below.body.errors).toEqual([{ path: '/retrySchedule/delaysSeconds/0', message: `must be at least ${floor} seconds (this service's minimum)` }]);
    // Nothing was changed by the refusals.
    expect((await api('GET', `/webhooks/${s.id}`, { key })).body.retrySchedule).toEqual(DEFAULT_VIEW);
  });

  it('works through GraphQL: created, read, changed, refused with the same code', async () => {
    const gql = (query: string, variables: Record<string, unknown>) => api('POST', '/graphql', { key, body: { query, variables } });
    const created = await gql(`mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { ${SELECTION} } }`, {
      input: body({ retrySchedule: { delaysSeconds: [120] } }),
    });
    expect(created.body.errors).toBeUndefined();
    const sub = created.body.data.createWebhookSubscription;
    expect(sub.retrySchedule).toEqual({ delaysSeconds: [120], maxAttempts: 2, spanSeconds: 120, custom: true });
    const read = await gql(`query($id: String!) { webhookSubscription(id: $id) { ${SELECTION} } }`, { id: sub.id });
    expect(read.body.data.webhookSubscription.retrySchedule.delaysSeconds).toEqual([120]);

    const update = `mutation($id: String!, $input: UpdateWebhookSubscriptionInput!) { updateWebhookSubscription(id: $id, input: $input) { ${SELECTION} } }`;
    const changed = await gql(update, { id: sub.id, input: { retrySchedule: { delaysSeconds: [60, 600, 3600] } } });
    expect(changed.body.data.updateWebhookSubscription.retrySchedule).toMatchObject({ maxAttempts: 4, spanSeconds: 4260 });
    const refused = await gql(update, { id: sub.id, input: { retrySchedule: { delaysSeconds: [10] } } });
    expect(refused.body.errors[0].extensions.code).toBe('validation_failed');
    expect(refused.body.errors[0].extensions.errors[0].path).toBe('/retrySchedule/delaysSeconds/0');
    const tooMany = await gql(update, { id: sub.id, input: { retrySchedule: { delaysSeconds: [60, 60, 60, 60, 60, 60, 60] } } });
    expect(tooMany.body.errors[0].extensions.code).toBe('validation_failed');
    // Wrong types stop at GraphQL's own input coercion, never reaching the service.
    const wrongType = await gql(update, { id: sub.id, input: { retrySchedule: { delaysSeconds: ['sixty'] } } });
    expect(wrongType.body.data ?? null).toBeNull();
    expect(wrongType.body.errors).toHaveLength(1);
    expect(JSON.stringify(wrongType.body)).not.toMatch(/prisma|stack/i);
    const reset = await gql(update, { id: sub.id, input: { retrySchedule: null } });
    expect(reset.body.data.updateWebhookSubscription.retrySchedule).toEqual(DEFAULT_VIEW);

    const limits = await gql('{ webhookLimits { retryMinDelaySeconds defaultRetryDelaysSeconds maxRetrySpanSeconds } }', {});
    expect(limits.body.data.webhookLimits).toEqual({ retryMinDelaySeconds: 60, defaultRetryDelaysSeconds: DEFAULT_VIEW.delaysSeconds, maxRetrySpanSeconds: 124_560 });
  });

  it('the delivery log shows each attempt against the schedule in force (attempt n of maxAttempts)', async () => {
    const { body: s } = await api('POST', '/webhooks', { key, body: body({ retrySchedule: { delaysSeconds: [60] } }) });
    const ref = await createDelivery(ws, s.id);
    await prisma.deliveryAttempt.create({
      data: {
        id: newId('att'), deliveryId: ref.deliveryId, subscriptionId: s.id, eventId: ref.eventId, eventType: ref.eventType, attempt: 1, trigger: 'scheduled',
        status: 'failed', httpStatus: 503, payload: '{}', workflowId: `deliveries:${s.id}`, attemptedAt: new Date(), nextAttemptAt: new Date(Date.now() + 60_000),
      },
    });
    const log = await api('GET', `/webhooks/${s.id}/deliveries?status=failed`, { key });
    expect(log.status).toBe(200);
    expect(log.body.data[0]).toMatchObject({ attempt: 1, maxAttempts: 2, status: 'failed' });
    await api('PATCH', `/webhooks/${s.id}`, { key, body: { retrySchedule: null } });
    expect((await api('GET', `/webhooks/${s.id}/deliveries?status=failed`, { key })).body.data[0].maxAttempts).toBe(7);
  });
});
