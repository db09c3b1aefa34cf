// The subscription endpoints through the REST facade (and GraphQL): saving with the URL rule,
// the per-key limit, roles, secrets, conditions, Test, and the delivery log's filters and paging.
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/config.ts';
import { prisma } from '../../../src/db/db.ts';
import { openSecrets } from '../fixtures.ts';
import { workspaceRepository } from '../../../src/workspaces/workspace.repository.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { createDelivery, deliveryRow, updateSubscription } from '../fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

const URL_OK = 'https://93.184.216.34/ticketing'; // a public address: a host name must resolve, and tests resolve nothing beyond loopback
const body = (extra: Record<string, unknown> = {}) => ({ url: URL_OK, events: ['ticket.created'], ...extra });

describe('webhook subscriptions', () => {
  let ws: Workspace;
  let key: string;

  beforeAll(async () => {
    ws = await createTestWorkspace();
    key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
  });

  it('creates a subscription and shows its secret once', async () => {
    const created = await api('POST', '/webhooks', { key, body: body({ boards: [ws.boards[0].id], description: 'CRM sync' }) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: URL_OK,
      events: ['ticket.created'],
      boards: [ws.boards[0].id],
      description: 'CRM sync',
      condition: 'receiving',
    });
    expect(created.body.id).toMatch(/^wh_[0-9A-Z]{26}$/);
    expect(Buffer.from(created.body.secret.replace(/^whsec_/, ''), 'base64')).toHaveLength(32);

    const read = await api('GET', `/webhooks/${created.body.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body.id).toBe(created.body.id);
    const list = await api('GET', '/webhooks', { key });
    expect(list.body.data.map((s: { id: string }) => s.id)).toContain(created.body.id);
    expect(list.body.data.every((s: object) => !('secret' in s))).toBe(true);
  });

  it('refuses URLs outside the rule, naming /url', async () => {
    for (const url of ['http://hooks.example.com/', 'https://127.0.0.1/', 'https://hooks.example.com:8080/', 'https://user:pw@hooks.example.com/', 'https://[::ffff:10.0.0.1]/']) {
      const res = await api('POST', '/webhooks', { key, body: body({ url }) });
      expect(res.status, url).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors[0].path).toBe('/url');
    }
  });

  it('validates events, boards and members', async () => {
    const cases: [unknown, string][] = [
      [body({ events: [] }), '/events'],
      [body({ events: ['ticket.deleted'] }), '/events/0'],
      [body({ events: ['webhook.test'] }), '/events/0'],
      [body({ boards: ['brd_nope'] }), '/boards/0'],
      [body({ secret: 'whsec_mine' }), '/secret'],
      [{ events: ['ticket.created'] }, '/url'],
    ];
    for (const [b, path] of cases) {
      const res = await api('POST', '/webhooks', { key, body: b });
      expect(res.status, JSON.stringify(b)).toBe(422);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
  });

  it('allows limits.maxWebhookSubscriptions per key, then answers 422 subscription_limit_reached', async () => {
    const other = await createTestWorkspace();
    const k = await other.key({ scopes: ['webhooks:manage'] });
    await prisma.apiKey.update({ where: { id: k.record.id }, data: { maxWebhookSubscriptions: 3 } });
    const results = await Promise.all(Array.from({ length: 6 }, () => api('POST', '/webhooks', { key: k.value, body: body() })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = results.filter((r) => r.status === 422);
    expect(refused).toHaveLength(3);
    expect(refused[0].body.code).toBe('subscription_limit_reached');

    // Deleting one makes room again.
    const id = results.find((r) => r.status === 201)!.body.id;
    expect((await api('DELETE', `/webhooks/${id}`, { key: k.value })).status).toBe(204);
    expect((await api('GET', `/webhooks/${id}`, { key: k.value })).status).toBe(404);
    expect((await api('POST', '/webhooks', { key: k.value, body: body() })).status).toBe(201);
  });

  it('changes members with PATCH and checks them like creation', async () => {
    const { body: s } = await api('POST', '/webhooks', { key, body: body() });
    const patched = await api('PATCH', `/webhooks/${s.id}`, { key, body: { events: ['ticket.state_changed', 'ticket.comment_added'], description: 'x' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: URL_OK, events: ['ticket.state_changed', 'ticket.comment_added'], description: 'x' });
    expect((await api('PATCH', `/webhooks/${s.id}`, { key, body: { url: 'https://10.1.2.3/' } })).body.errors[0].path).toBe('/url');
    expect((await api('PATCH', `/webhooks/${s.id}`, { key, body: {} })).status).toBe(422);
    expect((await api('PATCH', `/webhooks/${s.id}`, { key, body: { condition: 'paused' } })).body.errors[0].path).toBe('/condition');
  });

  it('bounds what the endpoint receives: maxInFlight (default 10, within the service maximum) and an optional rate', async () => {
    // A key of its own: the subscriptions made here do not count against the shared key's limit.
    const key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
    const { body: plain } = await api('POST', '/webhooks', { key, body: body() });
    expect(plain).toMatchObject({ maxInFlight: 10, ratePerSecond: null, effectiveInFlight: 10, retryAfterUntil: null });
    const { body: s, status } = await api('POST', '/webhooks', { key, body: body({ maxInFlight: 3, ratePerSecond: 2.5 }) });
    expect(status).toBe(201);
    expect(s).toMatchObject({ maxInFlight: 3, ratePerSecond: 2.5, effectiveInFlight: 3 });
    // Above the service's maximum (WEBHOOK_MAX_IN_FLIGHT_LIMIT, 50 by default), or out of the declared bounds: 422 naming the member.
    for (const [extra, path] of [
      [{ maxInFlight: 51 }, '/maxInFlight'],
      [{ maxInFlight: 0 }, '/maxInFlight'],
      [{ maxInFlight: 2.5 }, '/maxInFlight'],
      [{ maxInFlight: 100_000 }, '/maxInFlight'],
      [{ ratePerSecond: 0 }, '/ratePerSecond'],
      [{ ratePerSecond: 1e9 }, '/ratePerSecond'],
      [{ ratePerSecond: 'fast' }, '/ratePerSecond'],
    ] as const) {
      const res = await api('POST', '/webhooks', { key, body: body(extra) });
      expect(res.status, JSON.stringify(extra)).toBe(422);
      expect(res.body.errors[0].path).toBe(path);
    }
    // A bound lowered by 429/503 shows; a new maxInFlight starts afresh; null removes the rate.
    await updateSubscription(s.id, { effectiveInFlight: 1 });
    expect((await api('GET', `/webhooks/${s.id}`, { key })).body.effectiveInFlight).toBe(1);
    const patched = await api('PATCH', `/webhooks/${s.id}`, { key, body: { maxInFlight: 20, ratePerSecond: null } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ maxInFlight: 20, ratePerSecond: null, effectiveInFlight: 20 });
    expect((await api('PATCH', `/webhooks/${s.id}`, { key, body: { maxInFlight: 51 } })).body.errors[0].path).toBe('/maxInFlight');
    // Strictly ordered, the run sends one at a time whatever maxInFlight says, and so says the API (run-state.ts effectiveInFlight).
    const strict = await api('PATCH', `/webhooks/${s.id}`, { key, body: { ordering: 'strict' } });
    expect(strict.body).toMatchObject({ maxInFlight: 20, ordering: 'strict', effectiveInFlight: 1 });
    expect((await api('PATCH', `/webhooks/${s.id}`, { key, body: { ordering: 'concurrent' } })).body.effectiveInFlight).toBe(20);

    // The operator's floor for the rate (WEBHOOK_MIN_RATE_PER_SECOND, 0.1 by default): below it 422 naming the member, through REST and GraphQL, on creation and change.
    const floor = config.webhooks.minRatePerSecond;
    expect(floor).toBe(0.1);
    const slow = await api('POST', '/webhooks', { key, body: body({ ratePerSecond: 0.05 }) });
    expect(slow.status).toBe(422);
    expect(slow.body.errors).toEqual([{ path: '/ratePerSecond', message: `must be at least ${floor} (this service's minimum)` }]);
    expect((await api('PATCH', `/webhooks/${s.id}`, { key, body: { ratePerSecond: 0.01 } })).body.errors[0].path).toBe('/ratePerSecond');
    const viaGraphql = await api('POST', '/graphql', {
      key,
      body: { query: 'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id } }', variables: { input: body({ ratePerSecond: 0.02 }) } },
    });
    expect(viaGraphql.body.errors[0].extensions.code).toBe('validation_failed');
    expect(viaGraphql.body.errors[0].extensions.errors[0].path).toBe('/ratePerSecond');
    const atFloor = await api('PATCH', `/webhooks/${s.id}`, { key, body: { ratePerSecond: floor } });
    expect(atFloor.status).toBe(200);
    expect(atFloor.body.ratePerSecond).toBe(floor);
    expect((await api('PATCH', `/webhooks/${s.id}`, { key, body: { ratePerSecond: null } })).status).toBe(200);

    // The delivery log says when an attempt waited beyond its schedule, and for what.
    const ref = await createDelivery(ws, s.id);
    for (const [attempt, waited] of [[1, null], [2, { reason: 'retry_after', ms: 3_540_000 }]] as const) {
      await prisma.deliveryAttempt.create({
        data: {
          id: `att_01M8B0000000000000000000${attempt}A`,
          deliveryId: ref.deliveryId, subscriptionId: s.id, eventId: ref.eventId, eventType: ref.eventType, attempt, trigger: 'scheduled',
          status: attempt === 1 ? 'failed' : 'succeeded', httpStatus: attempt === 1 ? 503 : 200, payload: '{}', workflowId: `event:${ref.eventId}`,
          attemptedAt: new Date(Date.now() - (3 - attempt) * 1000), waitedReason: waited?.reason ?? null, waitedMs: waited?.ms ?? null,
        },
      });
    }
    const log = await api('GET', `/webhooks/${s.id}/deliveries`, { key });
    const attempts = log.body.data.filter((e: { id: string }) => e.id.startsWith('att_'));
    expect(attempts.map((e: { attempt: number; waited: unknown }) => [e.attempt, e.waited])).toEqual([
      [2, { reason: 'retry_after', ms: 3_540_000 }],
      [1, null],
    ]);
  });

  it('shows its ordering and its backlog: what waits, since when, and for what', async () => {
    const key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
    const { body: s, status } = await api('POST', '/webhooks', { key, body: body({ ordering: 'strict' }) });
    expect(status).toBe(201);
    expect(s).toMatchObject({ ordering: 'strict', backlog: { pending: 0, inFlight: 0, oldestWaitingSince: null, waitingFor: 'nothing' } });
    expect((await api('POST', '/webhooks', { key, body: body({ ordering: 'fifo' }) })).body.errors[0].path).toBe('/ordering');
    expect((await api('PATCH', `/webhooks/${s.id}`, { key, body: { ordering: 'concurrent' } })).body.ordering).toBe('concurrent');

    // Two deliveries wait; one is in flight (claimed by its run): the bound of 1 is full.
    const [first, second] = [await createDelivery(ws, s.id), await createDelivery(ws, s.id)];
    await updateSubscription(s.id, { maxInFlight: 1 });
    await prisma.delivery.update({ where: { id: first.deliveryId }, data: { claim: 'run:1' } });
    const busy = (await api('GET', `/webhooks/${s.id}`, { key })).body.backlog;
    expect(busy).toMatchObject({ pending: 1, inFlight: 1, waitingFor: 'in_flight_bound' });
    expect(Date.parse(busy.oldestWaitingSince)).toBe((await deliveryRow(second.deliveryId)).createdAt.getTime());
    // The receiver asked for time.
    await updateSubscription(s.id, { retryAfterUntil: new Date(Date.now() + 60_000) });
    expect((await api('GET', `/webhooks/${s.id}`, { key })).body.backlog.waitingFor).toBe('retry_after');
    // Paused: what waits is held.
    await prisma.delivery.updateMany({ where: { subscriptionId: s.id }, data: { status: 'held', claim: null } });
    await updateSubscription(s.id, { condition: 'paused', retryAfterUntil: null });
    expect((await api('GET', `/webhooks/${s.id}`, { key })).body.backlog).toMatchObject({ pending: 2, inFlight: 0, waitingFor: 'paused' });
  });

  it('rotates the secret: a new one, shown in that answer only; the old one kept for the 24 h window', async () => {
    const { body: s } = await api('POST', '/webhooks', { key, body: body() });
    const rotated = await api('POST', `/webhooks/${s.id}/rotate-secret`, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(s.secret);
    // Stored sealed (secrets-at-rest.test.ts); opened, the row holds the new and the old secret.
    const row = openSecrets(await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: s.id } }));
    expect(row.secret).toBe(rotated.body.secret);
    expect(row.previousSecret).toBe(s.secret);
    expect(row.secretRotatedAt).not.toBeNull();
  });

  it('moves between conditions only as the state table allows', async () => {
    const { body: s } = await api('POST', '/webhooks', { key, body: body() });
    for (const action of ['resume', 'enable']) {
      const res = await api('POST', `/webhooks/${s.id}/${action}`, { key });
      expect(res.status, action).toBe(422);
      expect(res.body.code).toBe('invalid_state_transition');
    }
    await updateSubscription(s.id, { condition: 'disabled', disabledAt: new Date(), consecutiveFailures: 3 });
    expect((await api('POST', `/webhooks/${s.id}/test`, { key })).body.code).toBe('invalid_state_transition');
    const enabled = await api('POST', `/webhooks/${s.id}/enable`, { key });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ condition: 'receiving', consecutiveFailures: 0 });

    await updateSubscription(s.id, { condition: 'paused', pausedAt: new Date(), consecutiveFailures: 20 });
    expect((await api('POST', `/webhooks/${s.id}/enable`, { key })).body.code).toBe('invalid_state_transition');
  });

  it('queues a webhook.test event for that subscription alone', async () => {
    const { body: s } = await api('POST', '/webhooks', { key, body: body({ events: ['ticket.comment_added'] }) });
    const res = await api('POST', `/webhooks/${s.id}/test`, { key });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ type: 'webhook.test' });
    const event = await prisma.event.findUniqueOrThrow({ where: { id: res.body.eventId } });
    expect(event).toMatchObject({ type: 'webhook.test', targetSubscriptionId: s.id, workspaceId: ws.workspace.id, relayedAt: null });
    expect(event.payload).toMatchObject({ id: res.body.eventId, type: 'webhook.test', data: { subscriptionId: s.id } });
  });

  it('needs webhooks:manage, and a role that may manage webhooks', async () => {
    const reader = (await ws.key({ scopes: ['tickets:read'] })).value;
    const res = await api('GET', '/webhooks', { key: reader });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect(res.headers.get('www-authenticate')).toContain('webhooks:manage');

    const viewerKey = (await ws.key({ scopes: ['webhooks:manage'], role: ws.roles.viewer.id })).value;
    const refused = await api('POST', '/webhooks', { key: viewerKey, body: body() });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
  });

  it('a role limited to some boards sees and saves only subscriptions of those boards', async () => {
    const w = await createTestWorkspace();
    const [visible, hidden] = w.boards;
    await prisma.role.update({ where: { id: w.roles.agent.id }, data: { permissions: { push: 'webhooks.manage' } } });
    await workspaceRepository.restrictRole(w.roles.agent.id, [visible.id]);
    const admin = (await w.key({ scopes: ['webhooks:manage'] })).value;
    const limited = (await w.key({ scopes: ['webhooks:manage'], role: w.roles.agent.id })).value;

    const all = await api('POST', '/webhooks', { key: admin, body: body() });
    const other = await api('POST', '/webhooks', { key: admin, body: body({ boards: [hidden.id] }) });
    const mine = await api('POST', '/webhooks', { key: limited, body: body({ boards: [visible.id] }) });
    expect(mine.status).toBe(201);

    const listed = await api('GET', '/webhooks', { key: limited });
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([mine.body.id]);
    expect((await api('GET', `/webhooks/${all.body.id}`, { key: limited })).status).toBe(404);
    expect((await api('GET', `/webhooks/${other.body.id}/deliveries`, { key: limited })).status).toBe(404);

    const everyBoard = await api('POST', '/webhooks', { key: limited, body: body() });
    expect(everyBoard.status).toBe(422);
    expect(everyBoard.body.errors[0].path).toBe('/boards');
    expect((await api('POST', '/webhooks', { key: limited, body: body({ boards: [hidden.id] }) })).body.errors[0].path).toBe('/boards/0');
  });

  it('lists the delivery log newest first with filters and cursor paging', async () => {
    const { body: s } = await api('POST', '/webhooks', { key, body: body() });
    const refs = [];
    for (let i = 0; i < 5; i++) refs.push(await createDelivery(ws, s.id, i % 2 ? 'ticket.state_changed' : 'ticket.created'));
    // Two of them have an attempt; one is held.
    const now = Date.now();
    for (const [i, ref] of [refs[0], refs[1]].entries()) {
      await prisma.deliveryAttempt.create({
        data: {
          id: `att_01JTESTATTEMPT0000000000${i}${i}`,
          deliveryId: ref.deliveryId,
          subscriptionId: s.id,
          eventId: ref.eventId,
          eventType: ref.eventType,
          attempt: 1,
          trigger: 'scheduled',
          status: i === 0 ? 'succeeded' : 'failed',
          httpStatus: i === 0 ? 200 : 500,
          durationMs: 12,
          responseExcerpt: 'ok',
          payload: JSON.stringify({ id: ref.eventId }),
          attemptedAt: new Date(now - 60_000 * (i + 1)),
          nextAttemptAt: i === 0 ? null : new Date(now + 60_000),
          workflowId: `delivery:${ref.eventId}:${s.id}`,
        },
      });
      await prisma.delivery.update({ where: { id: ref.deliveryId }, data: { attemptCount: 1, status: i === 0 ? 'succeeded' : 'pending' } });
    }
    await prisma.delivery.update({ where: { id: refs[2].deliveryId }, data: { status: 'held' } });

    const log = await api('GET', `/webhooks/${s.id}/deliveries`, { key });
    expect(log.status).toBe(200);
    // 2 attempts + 3 deliveries without one (2 pending, 1 held).
    expect(log.body.data).toHaveLength(5);
    const times = log.body.data.map((e: { attemptedAt: string | null }) => e.attemptedAt);
    expect(times.filter(Boolean)).toHaveLength(2);
    const succeeded = log.body.data.find((e: { status: string }) => e.status === 'succeeded');
    expect(succeeded).toMatchObject({ deliveryId: refs[0].deliveryId, eventId: refs[0].eventId, attempt: 1, trigger: 'scheduled', httpStatus: 200, durationMs: 12, payload: { id: refs[0].eventId } });
    expect(succeeded.workflowId).toBe(`delivery:${refs[0].eventId}:${s.id}`);

    const held = await api('GET', `/webhooks/${s.id}/deliveries?status=held`, { key });
    expect(held.body.data.map((e: { deliveryId: string }) => e.deliveryId)).toEqual([refs[2].deliveryId]);
    expect(held.body.data[0].payload).toMatchObject({ id: refs[2].eventId, type: 'ticket.created' });
    const changed = await api('GET', `/webhooks/${s.id}/deliveries?eventType=ticket.state_changed`, { key });
    expect(changed.body.data.every((e: { eventType: string }) => e.eventType === 'ticket.state_changed')).toBe(true);
    expect(changed.body.data).toHaveLength(2);
    const one = await api('GET', `/webhooks/${s.id}/deliveries?eventId=${refs[4].eventId}`, { key });
    expect(one.body.data.map((e: { eventId: string }) => e.eventId)).toEqual([refs[4].eventId]);
    const old = await api('GET', `/webhooks/${s.id}/deliveries?until=${new Date(now - 90_000).toISOString()}`, { key });
    expect(old.body.data.map((e: { deliveryId: string }) => e.deliveryId)).toEqual([refs[1].deliveryId]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof api>> = await api('GET', `/webhooks/${s.id}/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((e: { id: string }) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(log.body.data.map((e: { id: string }) => e.id));

    expect((await api('GET', `/webhooks/${s.id}/deliveries?cursor=bm9wZQ`, { key })).status).toBe(422);
    expect((await api('GET', `/webhooks/${s.id}/deliveries?status=lost`, { key })).body.errors[0].path).toBe('query/status');
  });

  it('resend refuses while paused, and for a delivery of another subscription', async () => {
    const { body: s } = await api('POST', '/webhooks', { key, body: body() });
    const { body: t } = await api('POST', '/webhooks', { key, body: body() });
    const ref = await createDelivery(ws, s.id);
    expect((await api('POST', `/webhooks/${t.id}/deliveries/${ref.deliveryId}/resend`, { key })).status).toBe(404);
    await updateSubscription(s.id, { condition: 'paused' });
    const res = await api('POST', `/webhooks/${s.id}/deliveries/${ref.deliveryId}/resend`, { key });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('invalid_state_transition');
  });

  it('offers the same operations in GraphQL', async () => {
    const gql = (query: string, variables: Record<string, unknown>) =>
      api('POST', '/graphql', { key, body: { query, variables } });
    const created = await gql(
      'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id condition secret } }',
      { input: { url: URL_OK, events: ['ticket.created'] } },
    );
    const s = created.body.data.createWebhookSubscription;
    expect(s.secret).toMatch(/^whsec_/);
    const read = await gql('query($id: String!) { webhookSubscription(id: $id) { id url condition } }', { id: s.id });
    expect(read.body.data.webhookSubscription).toEqual({ id: s.id, url: URL_OK, condition: 'receiving' });
    const bad = await gql('mutation($id: String!) { resumeWebhookSubscription(id: $id) { id } }', { id: s.id });
    expect(bad.body.errors[0].extensions.code).toBe('invalid_state_transition');
  });
});
