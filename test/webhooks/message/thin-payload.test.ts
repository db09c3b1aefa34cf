// Thin payloads (docs/integrators/webhooks.md, "Thin payloads"): a subscription's `payload`
// through REST and GraphQL, hostile values refused, and a real delivery on the time-skipping
// server: the outbox relay records the mode on the delivery, the worker sends the thin body to an
// HTTPS receiver, which verifies it with `standardwebhooks`, finds no ticket content in it, and
// fetches the ticket: its ETag is the event's version until a later change makes it stale (412).
// A retry after the subscription switched back to full sends the same bytes. In the isolated
// project: the relay claims the whole database's outbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Webhook } from 'standardwebhooks';
import { config } from '../../../src/config.ts';
import { prisma } from '../../../src/db/db.ts';
import { createOutboxRelay } from '../../../src/webhooks/fanout/outbox-relay.ts';
import { deliveryBody } from '../../../src/webhooks/message/webhook-sender.ts';
import { deliveredPayload } from '../../../src/webhooks/message/thin-payload.ts';
import { thinEnvelope } from '../../../src/events/event.thin.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { startTimeSkippingDeliveryStack } from '../../support/delivery-stack.ts';
import { uniqueId } from '../../support/temporal.ts';
import { createTicket, expect422, gql, type Ws } from '../../tickets/helpers.ts';
import { expectDocumentedDelivery } from '../../events/webhook-schemas.ts';
import { createEvent, createSubscription, runResult, updateSubscription, writeDelivery } from '../fixtures.ts';
import { createTestCa, startReceiver, type Receiver, type TestCa } from '../receiver.ts';

const URL_OK = 'https://93.184.216.34/ticketing';

describe('a subscription’s payload', () => {
  let ws: Ws;
  let key: string;

  beforeAll(async () => {
    ws = await createTestWorkspace('Thin payloads');
    key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
  });

  const subscribe = (body: Record<string, unknown>) => api('POST', '/webhooks', { key, body: { url: URL_OK, events: ['ticket.updated'], ...body } });

  it('is full by default, and is saved, read and changed through REST', async () => {
    expect((await subscribe({})).body.payload).toBe('full');
    const created = await subscribe({ payload: 'thin' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.payload).toBe('thin');
    expect((await api('GET', `/webhooks/${created.body.id}`, { key })).body.payload).toBe('thin');
    const listed = await api('GET', '/webhooks', { key });
    expect(listed.body.data.find((s: { id: string }) => s.id === created.body.id).payload).toBe('thin');
    const changed = await api('PATCH', `/webhooks/${created.body.id}`, { key, body: { payload: 'full' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.payload).toBe('full');
    // Another member's change leaves it as it is.
    await api('PATCH', `/webhooks/${created.body.id}`, { key, body: { payload: 'thin' } });
    expect((await api('PATCH', `/webhooks/${created.body.id}`, { key, body: { description: 'CRM' } })).body.payload).toBe('thin');
  });

  it('is saved, read and changed through GraphQL', async () => {
    const created = await gql(key, 'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id payload } }', {
      input: { url: URL_OK, events: ['ticket.created'], payload: 'thin' },
    });
    expect(created.errors).toBeUndefined();
    const { id, payload } = created.data.createWebhookSubscription;
    expect(payload).toBe('thin');
    const updated = await gql(key, 'mutation($id: String!, $input: UpdateWebhookSubscriptionInput!) { updateWebhookSubscription(id: $id, input: $input) { payload } }', {
      id,
      input: { payload: 'full' },
    });
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateWebhookSubscription.payload).toBe('full');
    expect((await gql(key, 'query($id: String!) { webhookSubscription(id: $id) { payload } }', { id })).data.webhookSubscription.payload).toBe('full');
  });

  it('shows a thin delivery waiting in the log as it will be sent, without the ticket’s content', async () => {
    const sub = await subscribe({ payload: 'thin', events: ['ticket.updated'] });
    const event = await createEvent(ws, 'ticket.updated', { id: 5, subject: 'Secret subject', version: 2 });
    // Written as the relay writes it; marked relayed so that no relay of this process takes the event again.
    await prisma.event.update({ where: { id: event.id }, data: { relayedAt: new Date() } });
    await writeDelivery(event.id, sub.body.id);
    const log = await api('GET', `/webhooks/${sub.body.id}/deliveries`, { key });
    expect(log.status, log.text).toBe(200);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ status: 'pending', payload: { id: event.id, payload: 'thin', data: { object: 'ticket', id: 5, version: 2 } } });
    expect(JSON.stringify(log.body.data[0].payload)).not.toContain('Secret');
  });

  it('refuses unknown values and wrong types (REST 422 at /payload, GraphQL invalid_request) and saves nothing', async () => {
    const before = await prisma.webhookSubscription.count({ where: { workspaceId: ws.workspace.id } });
    expect422(await subscribe({ payload: 'tiny' }), ['/payload']);
    expect422(await subscribe({ payload: 3 }), ['/payload']);
    expect422(await subscribe({ payload: null }), ['/payload']);
    expect422(await subscribe({ payload: ['thin'] }), ['/payload']);
    const sub = await subscribe({});
    expect422(await api('PATCH', `/webhooks/${sub.body.id}`, { key, body: { payload: 'THIN' } }), ['/payload']);
    expect422(await api('PATCH', `/webhooks/${sub.body.id}`, { key, body: { payload: { mode: 'thin' } } }), ['/payload']);
    expect((await api('GET', `/webhooks/${sub.body.id}`, { key })).body.payload).toBe('full');

    for (const payload of ['tiny', 3]) {
      const res = await gql(key, 'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id } }', {
        input: { url: URL_OK, events: ['ticket.created'], payload },
      });
      expect(res.data ?? null).toBeNull();
      expect(res.errors?.[0]?.extensions.code).toBe('invalid_request');
    }
    expect(await prisma.webhookSubscription.count({ where: { workspaceId: ws.workspace.id } })).toBe(before + 1);
  });
});

describe('thin bodies', () => {
  const envelope = {
    id: 'evt_1',
    type: 'ticket.comment_added',
    occurredAt: '2026-01-05T09:42:00.000Z',
    workspace: 'https://acme.example.com',
    actor: { id: 7, name: 'Zapier' },
    changes: null,
    data: { id: 12, subject: 'Secret subject', description: 'Secret text', version: 4 },
    comment: { id: 99, body: 'Secret comment' },
  };

  it('keep the envelope, drop every ticket content, and name what changed', () => {
    const thin = thinEnvelope(envelope, 'https://api.example.com/public/v1/') as Record<string, any>;
    expect(thin).toEqual({
      ...envelope,
      comment: undefined,
      data: { object: 'ticket', id: 12, version: 4, changedFields: ['comments'], url: 'https://api.example.com/public/v1/tickets/12', commentId: 99 },
      payload: 'thin',
    });
    expect('comment' in thin).toBe(false);
    expect(JSON.stringify(thin)).not.toMatch(/Secret/);
    const updated = thinEnvelope({ ...envelope, type: 'ticket.updated', comment: undefined, changes: [{ field: 'subject', oldValue: 'a', newValue: 'Secret' }, { field: 'fields.f1', oldValue: 1, newValue: 2 }] }, 'https://x/public/v1') as Record<string, any>;
    expect(updated.changes).toBeNull();
    expect(updated.data.changedFields).toEqual(['subject', 'fields.f1']);
    expect((thinEnvelope({ ...envelope, type: 'ticket.state_changed', changes: { field: 'state', oldValue: 'Open', newValue: 'Solved' } }, 'https://x') as any).data.changedFields).toEqual(['state']);
    expect((thinEnvelope({ ...envelope, type: 'ticket.created' }, 'https://x') as any).data.changedFields).toEqual([]);
  });

  it('leave events that are not about a ticket unchanged, and full deliveries too', () => {
    const test = { ...envelope, type: 'webhook.test', data: { subscriptionId: 'wh_1', url: 'https://x', message: 'hi' }, comment: undefined };
    expect(thinEnvelope(test, 'https://x')).toBe(test);
    expect(deliveredPayload(envelope, 'full')).toBe(envelope);
  });
});

describe('a thin delivery, end to end (time-skipping)', { timeout: 120_000 }, () => {
  let env: TestWorkflowEnvironment;
  let taskQueue: string;
  let receiver: Receiver;
  let tls: TestCa;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    tls = createTestCa();
    receiver = await startReceiver(tls);
    ({ env, taskQueue, stop } = await startTimeSkippingDeliveryStack({ queue: 'thin', tls, activities: (server) => ({ client: server.client, mailer: null }) }));
  }, 120_000);

  afterAll(async () => {
    await stop?.();
    await receiver?.close();
  }, 60_000);

  it('verifies, carries no ticket content, and names the version the ticket’s ETag has until it changes again', async () => {
    const ws = await createTestWorkspace('Thin delivery');
    const key = (await ws.key({ scopes: ['tickets:read', 'tickets:write', 'webhooks:manage'] })).value;
    const path = `/${uniqueId('thin')}`;
    // The first attempt of each delivery fails; while it is answered, the subscription switches to
    // full: the retries must still send the thin bytes they were relayed with.
    const seen = new Set<string>();
    let switched = false;
    receiver.respond(path, async (req) => {
      const id = req.headers['webhook-id'];
      if (seen.has(id)) return { status: 204 };
      seen.add(id);
      if (!switched) {
        switched = true;
        await updateSubscription(sub.id, { payload: 'full' });
      }
      return { status: 500 };
    });
    const sub = await createSubscription(ws, { url: `${receiver.origin}${path}`, events: ['ticket.created', 'ticket.updated'], payload: 'thin' });
    const relay = createOutboxRelay({ client: env.client, taskQueue });

    const ticket = await createTicket(ws, key, { subject: 'Invoice 77 for ACME', description: 'Card ending 4242' });
    const patched = await api('PATCH', `/tickets/${ticket.id}`, { key, body: { subject: 'Invoice 78 for ACME' } });
    expect(patched.status, patched.text).toBe(200);
    expect(await relay.drain()).toBeGreaterThanOrEqual(2);
    const deliveries = await prisma.delivery.findMany({ where: { subscriptionId: sub.id }, orderBy: { seq: 'asc' } });
    expect(deliveries.map((d) => d.payloadMode)).toEqual(['thin', 'thin']);

    // Each delivery twice: the failed first attempt, then its retry (the run ends once both succeeded; time skips meanwhile).
    await runResult(env.client, sub.id);
    expect(receiver.received(path)).toHaveLength(4);
    expect(switched).toBe(true);
    const requests = receiver.received(path);
    const hook = new Webhook(sub.secret);
    const bodies = new Map<string, string[]>();
    for (const req of requests) {
      hook.verify(req.body, req.headers); // throws unless the Standard Webhooks signature holds
      expectDocumentedDelivery(req);
      bodies.set(req.headers['webhook-id'], [...(bodies.get(req.headers['webhook-id']) ?? []), req.body]);
      expect(req.body).not.toMatch(/Invoice|ACME|4242/);
    }
    // A retry sends the same bytes under the same webhook-id, though the subscription is full by now.
    for (const [, sent] of bodies) expect(new Set(sent).size).toBe(1);

    const [created, updated] = deliveries.map((d) => JSON.parse(bodies.get(d.eventId)![0]));
    expect(created).toMatchObject({ type: 'ticket.created', payload: 'thin', changes: null, data: { object: 'ticket', id: ticket.id, version: 1, changedFields: [] } });
    expect(updated).toMatchObject({ type: 'ticket.updated', changes: null, data: { object: 'ticket', id: ticket.id, version: 2, changedFields: ['subject'] } });
    expect(updated.data.url).toBe(`${config.http.publicBaseUrl}/tickets/${ticket.id}`);
    expect(Object.keys(updated.data).sort()).toEqual(['changedFields', 'id', 'object', 'url', 'version']);

    // The receiver fetches the ticket: its ETag is the newest event's version, the older one is stale.
    const fetched = await api('GET', new URL(updated.data.url).pathname.replace(/^\/public\/v1/, ''), { key });
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('etag')).toBe(`"${updated.data.version}"`);
    expect(fetched.headers.get('etag')).not.toBe(`"${created.data.version}"`);
    const stale = await api('PATCH', `/tickets/${ticket.id}`, { key, body: { subject: 'Invoice 80' }, headers: { 'If-Match': `"${created.data.version}"` } });
    expect(stale.status, stale.text).toBe(412);
    expect(stale.body.code).toBe('precondition_failed');
    // While it is current, a change conditioned on it goes through; afterwards that version is stale too.
    const current = await api('PATCH', `/tickets/${ticket.id}`, { key, body: { subject: 'Invoice 79 for ACME' }, headers: { 'If-Match': `"${updated.data.version}"` } });
    expect(current.status, current.text).toBe(200);
    expect(current.headers.get('etag')).toBe(`"${updated.data.version + 1}"`);
    const late = await api('PATCH', `/tickets/${ticket.id}`, { key, body: { subject: 'Invoice 80' }, headers: { 'If-Match': `"${updated.data.version}"` } });
    expect(late.status, late.text).toBe(412);

    // Events relayed after the switch go out full: that change's ticket, content and all.
    await relay.drain();
    await runResult(env.client, sub.id);
    expect(receiver.received(path)).toHaveLength(6);
    const full = JSON.parse(receiver.received(path).at(-1)!.body);
    expect(full).toMatchObject({ type: 'ticket.updated', data: { id: ticket.id, subject: 'Invoice 79 for ACME', version: 3 } });
    const latest = await prisma.delivery.findMany({ where: { subscriptionId: sub.id }, orderBy: { seq: 'asc' } });
    expect(latest.map((d) => d.payloadMode)).toEqual(['thin', 'thin', 'full']);
    // What the log shows as sent is the thin body too.
    const logged = await prisma.deliveryAttempt.findFirstOrThrow({ where: { deliveryId: deliveries[1].id, status: 'succeeded' } });
    expect(logged.payload).toBe(deliveryBody(deliveredPayload((await prisma.event.findUniqueOrThrow({ where: { id: deliveries[1].eventId } })).payload, 'thin')));
  });
});
