// Recovery through the REST facade and GraphQL, with a real Temporal dev server and worker, the
// database and an HTTPS receiver: what is answered, what is re-sent, and what is refused.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { recoverFailedDeliveriesWorkflow } from '../../../src/webhooks/log/recover.workflows.ts';
import type { DeliveryRef } from '../../../src/webhooks/delivery/search-attributes.ts';
import { prisma } from '../../../src/db/db.ts';
import { deliveryBody } from '../../../src/webhooks/message/webhook-sender.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { uniqueId, type TestDevServer } from '../../support/temporal.ts';
import { startDevServerDeliveryStack } from '../../support/delivery-stack.ts';
import { wakeRun } from '../../../src/webhooks/delivery/wake.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { createDelivery, createSubscription, deliveryRow, subscriptionRow, updateSubscription } from '../fixtures.ts';
import { deliveryWithAttempts, manualAttemptsOf } from '../recover.fixtures.ts';
import { createTestCa, startReceiver, type Receiver } from '../receiver.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe('recovering failed deliveries (REST and GraphQL)', () => {
  let dev: TestDevServer;
  let taskQueue: string;
  let stop: (() => Promise<void>) | undefined;
  let receiver: Receiver;
  let ws: Workspace;
  let key: string;

  beforeAll(async () => {
    const tls = createTestCa();
    receiver = await startReceiver(tls);
    // Without the relay: the events here come with their deliveries and attempts, which a relay would start again.
    ({ temporal: dev, stop, taskQueue } = await startDevServerDeliveryStack({ queue: 'recover-api', tls, recover: true, relay: false, activities: () => ({ mailer: null }) }));
    ws = await createTestWorkspace();
    key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
  }, 180_000);

  afterAll(async () => {
    await stop?.();
    await receiver?.close();
  }, 60_000);

  const recover = (id: string, body: unknown, headers: Record<string, string> = {}, as = key) => api('POST', `/webhooks/${id}/recover`, { key: as, body, headers });
  const finished = (workflowId: string) => dev.client.workflow.getHandle<typeof recoverFailedDeliveriesWorkflow>(workflowId).result();
  const bodyOf = async (ref: DeliveryRef) => deliveryBody((await prisma.event.findUniqueOrThrow({ where: { id: ref.eventId } })).payload);

  async function subscriptionTo(name: string, status = 200) {
    const path = `/${uniqueId(name)}`;
    receiver.respond(path, { status, body: 'ok' });
    return { path, sub: await createSubscription(ws, { url: `${receiver.origin}${path}` }) };
  }

  it('answers 202 and re-sends the window’s failed deliveries as manual attempts, same body and webhook-id', async () => {
    const { path, sub } = await subscriptionTo('rest');
    const since = new Date(Date.now() - 2 * 60 * MINUTE);
    const until = new Date(since.getTime() + 60 * MINUTE);
    const at = (minutes: number) => new Date(since.getTime() + minutes * MINUTE);
    const atSince = await deliveryWithAttempts(ws, sub.id, [{ at: since }]);
    const retrying = await deliveryWithAttempts(ws, sub.id, [{ at: at(10) }], 'pending');
    const lastInWindow = await deliveryWithAttempts(ws, sub.id, [{ at: new Date(until.getTime() - 1) }]);
    const atUntil = await deliveryWithAttempts(ws, sub.id, [{ at: until }]);
    const before = await deliveryWithAttempts(ws, sub.id, [{ at: new Date(since.getTime() - 1) }]);
    const delivered = await deliveryWithAttempts(ws, sub.id, [{ at: at(5) }, { at: at(6), status: 'succeeded' }], 'succeeded');

    const requestId = uniqueId('req');
    const res = await recover(sub.id, { since: since.toISOString(), until: until.toISOString() }, { 'X-Request-Id': requestId });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: `recover:${sub.id}:${requestId}`, subscriptionId: sub.id, since: since.toISOString(), until: until.toISOString(), status: 'running' });
    expect(await finished(res.body.id)).toMatchObject({ resent: 3, succeeded: 3, failed: 0, stopped: null });

    const requests = receiver.received(path);
    const included = [atSince, retrying, lastInWindow];
    expect(requests.map((r) => r.headers['webhook-id']).sort()).toEqual(included.map((r) => r.eventId).sort());
    for (const ref of included) {
      const request = requests.find((r) => r.headers['webhook-id'] === ref.eventId)!;
      expect(request.body).toBe(await bodyOf(ref));
      expect(await manualAttemptsOf(ref.deliveryId)).toMatchObject([{ status: 'succeeded', workflowId: res.body.id }]);
      // Delivered now: no scheduled retry is due any more.
      expect(await deliveryRow(ref.deliveryId)).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
    }
    for (const ref of [atUntil, before, delivered]) expect(await manualAttemptsOf(ref.deliveryId)).toEqual([]);

    // The delivery log shows them, tied to the recovery by its id.
    const log = await api('GET', `/webhooks/${sub.id}/deliveries?since=${encodeURIComponent(res.body.until)}`, { key });
    const manual = log.body.data.filter((e: { trigger: string }) => e.trigger === 'manual');
    expect(manual.map((e: { deliveryId: string }) => e.deliveryId).sort()).toEqual(included.map((r) => r.deliveryId).sort());
    expect(new Set(manual.map((e: { workflowId: string }) => e.workflowId))).toEqual(new Set([res.body.id]));
  });

  it('takes now as the end of the window when `until` is absent', async () => {
    const { path, sub } = await subscriptionTo('until-now');
    const ref = await deliveryWithAttempts(ws, sub.id, [{ at: new Date(Date.now() - 1_000) }]);
    const asked = Date.now();
    const res = await recover(sub.id, { since: new Date(asked - DAY).toISOString() });
    expect(res.status).toBe(202);
    expect(Date.parse(res.body.until)).toBeGreaterThanOrEqual(asked);
    expect(Date.parse(res.body.until)).toBeLessThanOrEqual(Date.now());
    expect(await finished(res.body.id)).toMatchObject({ resent: 1, succeeded: 1 });
    expect(receiver.received(path).map((r) => r.headers['webhook-id'])).toEqual([ref.eventId]);
  });

  it('starts one recovery per Idempotency-Key, or per X-Request-Id', async () => {
    const { path, sub } = await subscriptionTo('once');
    await deliveryWithAttempts(ws, sub.id, [{ at: new Date(Date.now() - 1_000) }]);
    const body = { since: new Date(Date.now() - DAY).toISOString() };
    const headers = { 'Idempotency-Key': uniqueId('key') };
    const first = await recover(sub.id, body, headers);
    expect(first.status).toBe(202);
    expect(first.body.id).toMatch(new RegExp(`^recover:${sub.id}:idem_[0-9a-f]{32}$`));
    const replayed = await recover(sub.id, body, headers);
    expect(replayed.status).toBe(202);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(first.body);
    await finished(first.body.id);

    const requestId = uniqueId('req');
    const byRequestId = await recover(sub.id, body, { 'X-Request-Id': requestId });
    await finished(byRequestId.body.id);
    // A retry with the same request id, even with another window, gets that recovery.
    const retried = await recover(sub.id, { since: new Date(Date.now() - 2 * DAY).toISOString() }, { 'X-Request-Id': requestId });
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual({ ...byRequestId.body, status: 'finished' });
    // The Idempotency-Key's recovery re-sent the delivery; the request id's found nothing more to do.
    expect(receiver.received(path)).toHaveLength(1);
  });

  it('runs one recovery per subscription at a time (409 recovery_in_progress), with its workspace’s fairness key; one that ended without giving its place up holds it no more', async () => {
    const path = `/${uniqueId('one-at-a-time')}`;
    // The receiver asks for an hour's pause: the run holds every attempt of the subscription, the
    // recovery's manual ones too, so the recovery keeps running for as long as the test needs.
    receiver.respond(path, { status: 503, headers: { 'retry-after': '3600' }, body: 'busy' });
    const sub = await createSubscription(ws, { url: `${receiver.origin}${path}` });
    await createDelivery(ws, sub.id);
    await deliveryWithAttempts(ws, sub.id, [{ at: new Date(Date.now() - MINUTE) }]);
    await wakeRun(dev.client, taskQueue, { subscriptionId: sub.id, workspaceId: ws.workspace.id });
    await vi.waitFor(async () => expect((await subscriptionRow(sub.id)).retryAfterUntil).not.toBeNull(), { timeout: 30_000, interval: 50 });

    const body = { since: new Date(Date.now() - DAY).toISOString() };
    const firstRequest = uniqueId('req');
    const first = await recover(sub.id, body, { 'X-Request-Id': firstRequest });
    expect(first.status).toBe(202);
    expect(first.body.status).toBe('running');
    // Its tasks take their turn with the workspace's others (Temporal's fairness key), as the runs' do.
    expect((await dev.client.workflow.getHandle(first.body.id).describe()).priority?.fairnessKey).toBe(`workspace:${ws.workspace.id}`);

    const second = await recover(sub.id, body, { 'X-Request-Id': uniqueId('req') });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('recovery_in_progress');
    // A repeat of the running one's request gets it; another subscription is not held up.
    const repeat = await recover(sub.id, body, { 'X-Request-Id': firstRequest });
    expect(repeat.status).toBe(202);
    expect(repeat.body).toEqual(first.body);
    const { sub: other } = await subscriptionTo('one-at-a-time-other');
    const elsewhere = await recover(other.id, body);
    expect(elsewhere.status).toBe(202);
    await finished(elsewhere.body.id);

    // Terminated (an operator's hand): it never gave its place up, and the next recovery takes it.
    await dev.client.workflow.getHandle(first.body.id).terminate('test: a recovery ended without giving its place up');
    const third = await recover(sub.id, body, { 'X-Request-Id': uniqueId('req') });
    expect(third.status).toBe(202);
    expect(third.body.id).not.toBe(first.body.id);
    expect((await subscriptionRow(sub.id)).runningRecovery).toBe(third.body.id);
    for (const id of [third.body.id, deliveryRunWorkflowId(sub.id)]) await dev.client.workflow.getHandle(id).terminate('test: done');
  });

  it('refuses a key without webhooks:manage, a role that may not manage webhooks, and another workspace’s subscription', async () => {
    const { sub } = await subscriptionTo('refusals');
    const body = { since: new Date(Date.now() - DAY).toISOString() };
    const reader = (await ws.key({ scopes: ['tickets:read', 'tickets:write'] })).value;
    const noScope = await recover(sub.id, body, {}, reader);
    expect(noScope.status).toBe(403);
    expect(noScope.body.code).toBe('insufficient_scope');
    const viewer = (await ws.key({ scopes: ['webhooks:manage'], role: ws.roles.viewer.id })).value;
    expect((await recover(sub.id, body, {}, viewer)).body.code).toBe('forbidden');

    const other = await createTestWorkspace();
    const otherKey = (await other.key({ scopes: ['webhooks:manage'] })).value;
    const foreign = await recover(sub.id, body, {}, otherKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');
    expect((await recover('wh_01ARZ3NDEKTSV4RRFFQ69G5FAV', body)).status).toBe(404);
  });

  it('refuses while paused or disabled (422 invalid_state_transition), sending nothing', async () => {
    const { path, sub } = await subscriptionTo('not-receiving');
    await deliveryWithAttempts(ws, sub.id, [{ at: new Date(Date.now() - 1_000) }]);
    for (const condition of ['paused', 'disabled'] as const) {
      await updateSubscription(sub.id, { condition });
      const res = await recover(sub.id, { since: new Date(Date.now() - DAY).toISOString() });
      expect(res.status, condition).toBe(422);
      expect(res.body.code).toBe('invalid_state_transition');
      expect(res.body.detail).toContain(condition);
    }
    expect(receiver.received(path)).toHaveLength(0);
  });

  it('refuses a window that is empty, in the future, longer than 30 days or malformed (422, naming the member)', async () => {
    const { sub } = await subscriptionTo('windows');
    const now = Date.now();
    const iso = (t: number) => new Date(t).toISOString();
    const cases: [unknown, string][] = [
      [{ since: iso(now - MINUTE), until: iso(now - MINUTE) }, '/since'],
      [{ since: iso(now - MINUTE), until: iso(now - 2 * MINUTE) }, '/since'],
      [{ since: iso(now + MINUTE) }, '/since'],
      [{ since: iso(now - DAY), until: iso(now + 10 * MINUTE) }, '/until'],
      [{ since: iso(now - 31 * DAY), until: iso(now - MINUTE) }, '/since'],
      [{ until: iso(now - MINUTE) }, '/since'],
      [{ since: 'yesterday' }, '/since'],
      [{ since: iso(now - DAY), window: '1h' }, '/window'],
    ];
    for (const [body, member] of cases) {
      const res = await recover(sub.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path), JSON.stringify(body)).toContain(member);
    }
    // Exactly 30 days is allowed.
    expect((await recover(sub.id, { since: iso(now - 30 * DAY), until: iso(now) })).status).toBe(202);
  });

  it('offers the same mutation in GraphQL', async () => {
    const { path, sub } = await subscriptionTo('graphql');
    const ref = await deliveryWithAttempts(ws, sub.id, [{ at: new Date(Date.now() - MINUTE) }]);
    const mutation = 'mutation($id: String!, $since: DateTime!, $until: DateTime) { recoverWebhookDeliveries(subscriptionId: $id, since: $since, until: $until) { id subscriptionId since until status } }';
    const gql = (variables: Record<string, unknown>, headers: Record<string, string> = {}) => api('POST', '/graphql', { key, body: { query: mutation, variables }, headers });
    const since = new Date(Date.now() - DAY).toISOString();
    const requestId = uniqueId('gql');
    const res = await gql({ id: sub.id, since }, { 'X-Request-Id': requestId });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.recoverWebhookDeliveries).toMatchObject({ id: `recover:${sub.id}:${requestId}`, subscriptionId: sub.id, since, status: 'running' });
    await finished(res.body.data.recoverWebhookDeliveries.id);
    expect(receiver.received(path).map((r) => r.headers['webhook-id'])).toEqual([ref.eventId]);

    const future = await gql({ id: sub.id, since, until: new Date(Date.now() + DAY).toISOString() });
    expect(future.body.errors[0].extensions.code).toBe('validation_failed');
    await updateSubscription(sub.id, { condition: 'paused' });
    expect((await gql({ id: sub.id, since })).body.errors[0].extensions.code).toBe('invalid_state_transition');
  });
});
