// Queues a caller can fill have caps: live subscriptions per workspace (for keys and signed-in
// people alike; every event fans out to all of them), and held deliveries per subscription.
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/config.ts';
import { createApp } from '../../../src/http/app.ts';
import { prisma } from '../../../src/db/db.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { signInAdmin } from '../../support/limits.ts';
import type { Client } from '@temporalio/client';
import { relayRepository } from '../../../src/webhooks/fanout/relay.repository.ts';
import { createOutboxRelay } from '../../../src/webhooks/fanout/outbox-relay.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { createDelivery, createEvent, createSubscription } from '../fixtures.ts';
import { conditionRepository } from '../../../src/webhooks/subscriptions/condition.repository.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;
const body = { url: 'https://93.184.216.34/ticketing', events: ['ticket.created'] };
const createMutation = 'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id } }';

describe('live subscriptions per workspace', () => {
  const app = createApp();
  const max = config.limits.maxWebhookSubscriptionsPerWorkspace;
  let ws: Workspace;
  let session: Record<string, string>;

  beforeAll(async () => {
    ws = await createTestWorkspace('Subscription cap');
    session = await signInAdmin(app, ws.admin.email!);
    // All but two of the workspace's allowance, as any caller could have saved them.
    for (let i = 0; i < max - 2; i++) await createSubscription(ws, { url: `https://93.184.216.34/${i}` });
  });

  it(`caps a workspace at ${max} live subscriptions for people and keys alike: 422 subscription_limit_reached`, async () => {
    const first = await api('POST', '/graphql', { app, headers: session, body: { query: createMutation, variables: { input: body } } });
    expect(first.body.errors).toBeUndefined();
    // The last place: parallel requests of a person cannot together pass the cap.
    const racing = await Promise.all(
      Array.from({ length: 4 }, () => api('POST', '/graphql', { app, headers: session, body: { query: createMutation, variables: { input: body } } })),
    );
    expect(racing.filter((r) => !r.body.errors)).toHaveLength(1);
    const refused = racing.filter((r) => r.body.errors);
    expect(refused).toHaveLength(3);
    expect(refused[0].body.errors[0].extensions.code).toBe('subscription_limit_reached');
    expect(refused[0].body.errors[0].message).toContain(`workspace already has ${max}`);
    expect(await prisma.webhookSubscription.count({ where: { workspaceId: ws.workspace.id, deletedAt: null } })).toBe(max);

    // A key under its own limit is refused the same way, through REST.
    const key = await ws.key({ scopes: ['webhooks:manage'] });
    const byKey = await api('POST', '/webhooks', { app, key: key.value, body });
    expect(byKey.status).toBe(422);
    expect(byKey.body.code).toBe('subscription_limit_reached');

    // Deleting one makes room again; other workspaces are not affected.
    const one = await prisma.webhookSubscription.findFirstOrThrow({ where: { workspaceId: ws.workspace.id, deletedAt: null } });
    expect((await api('DELETE', `/webhooks/${one.id}`, { app, key: key.value })).status).toBe(204);
    expect((await api('POST', '/webhooks', { app, key: key.value, body })).status).toBe(201);
    const other = await createTestWorkspace('Subscription cap, other');
    expect((await api('POST', '/webhooks', { app, key: (await other.key({ scopes: ['webhooks:manage'] })).value, body })).status).toBe(201);
  });
});

describe('held deliveries per paused subscription', () => {
  const app = createApp();
  const cap = config.limits.maxHeldDeliveriesPerSubscription;
  let ws: Workspace;
  let key: string;

  beforeAll(async () => {
    ws = await createTestWorkspace('Held cap');
    key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
  });

  /** `n` held deliveries of new events, as a paused subscription's workflows leave them. */
  async function holdDeliveries(subscriptionId: string, n: number) {
    for (let i = 0; i < n; i++) {
      const ref = await createDelivery(ws, subscriptionId);
      await prisma.delivery.update({ where: { id: ref.deliveryId }, data: { status: 'held' } });
    }
  }

  it(`accepts test events for a paused subscription up to ${cap} held, then answers 422 held_delivery_limit_reached`, async () => {
    const sub = await createSubscription(ws, { url: 'https://93.184.216.34/held', condition: 'paused', pausedAt: new Date() });
    await holdDeliveries(sub.id, cap - 2);
    // Parallel requests cannot together pass the cap: the test events on their way count.
    const results = await Promise.all(Array.from({ length: 4 }, () => api('POST', `/webhooks/${sub.id}/test`, { app, key })));
    expect(results.filter((r) => r.status === 202)).toHaveLength(2);
    const refused = results.filter((r) => r.status === 422);
    expect(refused).toHaveLength(2);
    expect(refused[0].body.code).toBe('held_delivery_limit_reached');
    expect(await prisma.event.count({ where: { targetSubscriptionId: sub.id } })).toBe(2);

    // GraphQL refuses the same way.
    const gql = await api('POST', '/graphql', { app, key, body: { query: 'mutation($id: String!) { sendWebhookTest(id: $id) { eventId } }', variables: { id: sub.id } } });
    expect(gql.body.errors[0].extensions.code).toBe('held_delivery_limit_reached');

    // A receiving subscription is not affected (its deliveries go out, nothing is held).
    const receiving = await createSubscription(ws, { url: 'https://93.184.216.34/receiving' });
    expect((await api('POST', `/webhooks/${receiving.id}/test`, { app, key })).status).toBe(202);
  });

  it('skips a paused subscription at its cap when relaying other events (documented: not kept, not sent on resume)', async () => {
    const small = 3;
    const full = await createSubscription(ws, { url: 'https://93.184.216.34/full', condition: 'paused', pausedAt: new Date() });
    const room = await createSubscription(ws, { url: 'https://93.184.216.34/room', condition: 'paused', pausedAt: new Date() });
    await holdDeliveries(full.id, small);
    await holdDeliveries(room.id, small - 1);
    const ids = (await relayRepository.subscriptionsForRelay([ws.workspace.id], small)).map((s) => s.id);
    expect(ids).toContain(room.id);
    expect(ids).not.toContain(full.id);
  });

  it('counts per delivery as one relay batch writes: a batch of more events than the room leaves the subscription exactly at its cap', async () => {
    const near = await createSubscription(ws, { url: 'https://93.184.216.34/near', condition: 'paused', pausedAt: new Date() });
    await holdDeliveries(near.id, cap - 3);
    // The fixtures' events are relayed already; the relay takes the ten below in one batch.
    await prisma.event.updateMany({ where: { relayedAt: null }, data: { relayedAt: new Date() } });
    const events = [];
    for (let i = 0; i < 10; i++) events.push(await createEvent(ws));
    // No workflows: a client that only records the runs it wakes.
    const woken = new Set<string>();
    const client = {
      workflow: { signalWithStart: async (_wf: unknown, o: { workflowId: string }) => void woken.add(o.workflowId) },
    } as unknown as Client;
    expect(await createOutboxRelay({ client, taskQueue: 'held-cap', batchSize: 200 }).drain()).toBe(10);
    const waiting = await prisma.delivery.count({ where: { subscriptionId: near.id, status: { in: ['held', 'pending'] } } });
    expect(waiting).toBe(cap);
    // The three oldest events made it; the seven after are skipped for this subscription (not kept), all relayed.
    const made = await prisma.delivery.findMany({ where: { subscriptionId: near.id, eventId: { in: events.map((e) => e.id) } }, select: { eventId: true } });
    expect(made.map((d) => d.eventId).sort()).toEqual(events.slice(0, 3).map((e) => e.id).sort());
    expect(await prisma.event.count({ where: { id: { in: events.map((e) => e.id) }, relayedAt: null } })).toBe(0);
    expect(woken.has(deliveryRunWorkflowId(near.id))).toBe(true);
  });

  it('counts a subscription paused by hand between the relay’s read and its write: the batch stops at the cap', async () => {
    const busy = await createSubscription(ws, { url: 'https://93.184.216.34/busy' });
    // A backlog waiting for its receiver: three deliveries short of the cap, still pending.
    for (let i = 0; i < cap - 3; i++) await createDelivery(ws, busy.id);
    const written = [];
    for (let i = 0; i < 10; i++) written.push((await createEvent(ws)).id);
    const events = await prisma.event.findMany({ where: { id: { in: written } }, select: { id: true, seq: true }, orderBy: { seq: 'asc' } });
    // The relay's steps: it reads the subscriptions (receiving) …
    const read = await relayRepository.subscriptionsForRelay([ws.workspace.id]);
    const paused = new Set(read.filter((s) => s.condition === 'paused').map((s) => s.id));
    expect(paused.has(busy.id)).toBe(false);
    // … a person pauses it (what waits is held) …
    expect(await conditionRepository.pause(busy.id, { id: ws.admin.id, name: 'Test Admin' })).toBe(true);
    // … and the relay writes its batch.
    const pairs = events.map((e) => ({ eventId: e.id, subscriptionId: busy.id, seq: e.seq, workflowId: deliveryRunWorkflowId(busy.id) }));
    const kept = await relayRepository.createDeliveries(pairs, paused);
    expect(kept.map((p) => p.eventId)).toEqual(events.slice(0, 3).map((e) => e.id));
    expect(await prisma.delivery.count({ where: { subscriptionId: busy.id, status: { in: ['held', 'pending'] } } })).toBe(cap);
  });
});
