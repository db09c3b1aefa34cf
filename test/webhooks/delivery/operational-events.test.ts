// Operational events on the time-skipping test server, with a real worker running the real
// delivery activities against a real HTTPS receiver, and the real outbox relay: each event is
// written with its transition, delivered (signed, as documented) to the other subscriptions that
// listen to it and never to the one it is about; a failed delivery of an operational event is not
// reported again (the loop rule); board-limited subscriptions hear only of subscriptions within
// their boards; the events feed leaves them out.
import { describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { prisma } from '../../../src/db/db.ts';
import type { Prisma } from '../../../src/generated/prisma/client.ts';
import { deliveryRunWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import type { DeliveryRef } from '../../../src/webhooks/delivery/search-attributes.ts';
import { conditionRepository } from '../../../src/webhooks/subscriptions/condition.repository.ts';
import { createOutboxRelay } from '../../../src/webhooks/fanout/outbox-relay.ts';
import { writeConditionEvent } from '../../../src/webhooks/delivery/operational-events.ts';
import { OPERATIONAL_EVENT_TYPES } from '../../../src/events/event.envelope.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { uniqueId } from '../../support/temporal.ts';
import { useTimeSkippingDeliveryStack } from '../../support/delivery-stack.ts';
import { expectDocumentedDelivery } from '../../events/webhook-schemas.ts';
import { createDelivery, createSubscription, deliveryResult, wakeRunOf, subscriptionRow } from '../fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

describe('operational events (time-skipping)', () => {
  const stack = useTimeSkippingDeliveryStack({ queue: 'operational', activities: (server) => ({ client: server.client, mailer: null }) });

  /** A subscription on its own receiver path, answering `status`. */
  async function endpoint(ws: Workspace, status: number, events: string[], extra: Partial<Prisma.WebhookSubscriptionUncheckedCreateInput> = {}) {
    const path = `/${uniqueId('op')}`;
    stack.receiver.respond(path, { status });
    const sub = await createSubscription(ws, { url: `${stack.receiver.origin}${path}`, events, ...extra });
    return { ...sub, path };
  }

  const operationalEvents = (ws: Workspace, type: string) => prisma.event.findMany({ where: { workspaceId: ws.workspace.id, type }, orderBy: { seq: 'asc' } });
  const recipients = async (eventId: string) => (await prisma.delivery.findMany({ where: { eventId }, select: { subscriptionId: true } })).map((d) => d.subscriptionId).sort();

  /** Relays what waits and lets the runs of these events' subscriptions finish (time skips while awaited). */
  async function relayAndDeliver(eventIds: string[]) {
    await createOutboxRelay({ client: stack.env.client, taskQueue: stack.taskQueue }).drain();
    const subscriptions = new Set((await Promise.all(eventIds.map(recipients))).flat());
    for (const id of subscriptions) await stack.env.client.workflow.getHandle(deliveryRunWorkflowId(id)).result();
  }

  /** The one request of this event type on the path, verified with the subscription's secret and against the document. */
  function receivedOne(sub: { path: string; secret: string }, type: string) {
    const requests = stack.receiver.received(sub.path).filter((r) => JSON.parse(r.body).type === type);
    expect(requests, `${type} at ${sub.path}`).toHaveLength(1);
    const request = requests[0];
    expectDocumentedDelivery(request);
    return new StandardWebhook(sub.secret).verify(request.body, request.headers) as { id: string; actor: unknown; changes: unknown; data: Record<string, unknown> };
  }
  const receivedNone = (sub: { path: string }, type: string) => expect(stack.receiver.received(sub.path).filter((r) => JSON.parse(r.body).type === type)).toEqual([]);

  it('a pause and a resume: each written with its transition and delivered to the other subscriptions, never to the one it is about', async () => {
    const ws = await createTestWorkspace();
    const watcher = await endpoint(ws, 204, [...OPERATIONAL_EVENT_TYPES]);
    const failing = await endpoint(ws, 500, ['ticket.created', 'webhook.paused', 'webhook.resumed'], { consecutiveFailures: 19, description: 'CRM sync' });
    const ref: DeliveryRef = await createDelivery(ws, failing.id);

    await wakeRunOf(stack.env.client, stack.taskQueue, ref);
    // The first attempt is the 20th failure in a row: it pauses the subscription (the retry will be held).
    await expect.poll(async () => (await subscriptionRow(failing.id)).condition, { timeout: 20_000 }).toBe('paused');
    const [paused, ...more] = await operationalEvents(ws, 'webhook.paused');
    expect(more).toHaveLength(0);
    expect(paused).toMatchObject({ aboutSubscriptionId: failing.id, actorId: null, ticketId: null, boardId: null });

    await relayAndDeliver([paused.id]);
    expect(await recipients(paused.id)).toEqual([watcher.id]);
    const body = receivedOne(watcher, 'webhook.paused');
    expect(body).toMatchObject({ id: paused.id, actor: null, changes: null });
    expect(body.data).toEqual({
      subscriptionId: failing.id,
      url: new URL(failing.url).origin,
      description: 'CRM sync',
      condition: 'paused',
      reason: 'failures',
      consecutiveFailures: 20,
    });
    // Nothing secret, no ticket.
    expect(JSON.stringify(body)).not.toContain(failing.secret.slice(6));
    receivedNone(failing, 'webhook.paused');

    // Resumed by a person: the actor is that person.
    expect(await conditionRepository.resume(failing.id, { id: ws.admin.id, name: ws.admin.fullName })).toBe(true);
    const [resumed] = await operationalEvents(ws, 'webhook.resumed');
    await relayAndDeliver([resumed.id]);
    expect(await recipients(resumed.id)).toEqual([watcher.id]);
    expect(receivedOne(watcher, 'webhook.resumed')).toMatchObject({
      actor: { id: ws.admin.id, name: ws.admin.fullName },
      data: { subscriptionId: failing.id, condition: 'receiving', reason: 'manual', consecutiveFailures: 0 },
    });
    receivedNone(failing, 'webhook.resumed');
    // A resume of a subscription that is not paused changes nothing and says nothing.
    expect(await conditionRepository.resume(failing.id)).toBe(false);
    expect(await operationalEvents(ws, 'webhook.resumed')).toHaveLength(1);
  });

  it('a 410 disable and a re-enable through the API: delivered to the other subscriptions only', async () => {
    const ws = await createTestWorkspace();
    const key = (await ws.key({ name: 'Ops bot', scopes: ['webhooks:manage'] })).value;
    const watcher = await endpoint(ws, 204, ['webhook.disabled', 'webhook.enabled']);
    const gone = await endpoint(ws, 410, ['ticket.created', 'webhook.disabled', 'webhook.enabled']);
    const ref = await createDelivery(ws, gone.id);

    await wakeRunOf(stack.env.client, stack.taskQueue, ref);
    expect((await deliveryResult(stack.env.client, ref)).status).toBe('cancelled');
    const [disabled] = await operationalEvents(ws, 'webhook.disabled');
    await relayAndDeliver([disabled.id]);
    expect(await recipients(disabled.id)).toEqual([watcher.id]);
    expect(receivedOne(watcher, 'webhook.disabled')).toMatchObject({ actor: null, data: { subscriptionId: gone.id, condition: 'disabled', reason: 'gone' } });

    const enabled = await api('POST', `/webhooks/${gone.id}/enable`, { key });
    expect(enabled.status, enabled.text).toBe(200);
    const [event] = await operationalEvents(ws, 'webhook.enabled');
    await relayAndDeliver([event.id]);
    expect(await recipients(event.id)).toEqual([watcher.id]);
    const body = receivedOne(watcher, 'webhook.enabled');
    // The key's service account re-enabled it.
    expect(body.actor).toMatchObject({ name: expect.stringContaining('Ops bot') });
    expect(body.data).toMatchObject({ subscriptionId: gone.id, condition: 'receiving', reason: 'manual' });
    for (const type of ['webhook.disabled', 'webhook.enabled']) receivedNone(gone, type);
  });

  it('a delivery out of attempts is reported to the others; the failed delivery of that report is not reported again (no ping-pong)', async () => {
    const ws = await createTestWorkspace();
    const a = await endpoint(ws, 503, ['ticket.created', 'webhook.delivery_failed']);
    const b = await endpoint(ws, 503, ['webhook.delivery_failed']);
    const watcher = await endpoint(ws, 204, ['webhook.delivery_failed']);
    const ref = await createDelivery(ws, a.id);

    await wakeRunOf(stack.env.client, stack.taskQueue, ref);
    expect(await deliveryResult(stack.env.client, ref)).toEqual({ status: 'failed', attempt: 7 });
    const [failed, ...more] = await operationalEvents(ws, 'webhook.delivery_failed');
    expect(more).toHaveLength(0);
    expect(failed.aboutSubscriptionId).toBe(a.id);

    await relayAndDeliver([failed.id]);
    expect(await recipients(failed.id)).toEqual([b.id, watcher.id].sort());
    const body = receivedOne(watcher, 'webhook.delivery_failed');
    expect(body).toMatchObject({ actor: null, changes: null });
    expect(body.data).toMatchObject({
      subscriptionId: a.id,
      url: new URL(a.url).origin,
      condition: 'receiving',
      deliveryId: ref.deliveryId,
      eventId: ref.eventId,
      eventType: 'ticket.created',
      attempts: 7,
      lastAttempt: { httpStatus: 503, error: null, attemptedAt: expect.any(String) },
    });
    // No ticket in it: only the event's id leads there.
    expect(body.data).not.toHaveProperty('data');
    receivedNone(a, 'webhook.delivery_failed');

    // b failed all seven attempts of the report too; that is not reported: still one such event.
    const toB = await prisma.delivery.findFirstOrThrow({ where: { eventId: failed.id, subscriptionId: b.id } });
    expect(toB).toMatchObject({ status: 'failed', attemptCount: 7 });
    await relayAndDeliver([]);
    expect(await operationalEvents(ws, 'webhook.delivery_failed')).toHaveLength(1);
    expect(await prisma.event.count({ where: { workspaceId: ws.workspace.id, relayedAt: null } })).toBe(0);
  });

  it('board-limited subscriptions hear only of subscriptions limited to some of their boards', async () => {
    const ws = await createTestWorkspace();
    const [support, billing] = ws.boards;
    const everyBoard = await endpoint(ws, 204, ['webhook.paused']);
    const onSupport = await endpoint(ws, 204, ['webhook.paused'], { boardIds: [support.id] });
    const onBoth = await endpoint(ws, 204, ['webhook.paused'], { boardIds: [support.id, billing.id] });
    const aboutAll = await endpoint(ws, 500, ['ticket.created']);
    const aboutSupport = await endpoint(ws, 500, ['ticket.created'], { boardIds: [support.id] });
    const aboutBilling = await endpoint(ws, 500, ['ticket.created'], { boardIds: [billing.id] });
    const write = (id: string) => prisma.$transaction((tx) => writeConditionEvent(tx, 'webhook.paused', id, 'failures', null, new Date()));
    const events = { all: await write(aboutAll.id), support: await write(aboutSupport.id), billing: await write(aboutBilling.id) };

    await relayAndDeliver(Object.values(events).map((e) => e.id));
    expect(await recipients(events.all.id)).toEqual([everyBoard.id]);
    expect(await recipients(events.support.id)).toEqual([everyBoard.id, onSupport.id, onBoth.id].sort());
    expect(await recipients(events.billing.id)).toEqual([everyBoard.id, onBoth.id].sort());
  });

  it('leaves operational events out of the events feed (they need webhooks:manage; the feed is tickets:read)', async () => {
    const ws = await createTestWorkspace();
    const key = (await ws.key({ scopes: ['tickets:read', 'webhooks:manage'] })).value;
    const sub = await endpoint(ws, 204, ['ticket.created']);
    const event = await prisma.$transaction((tx) => writeConditionEvent(tx, 'webhook.paused', sub.id, 'failures', null, new Date()));
    const feed = await api('GET', '/events', { key });
    expect(feed.status, feed.text).toBe(200);
    expect(feed.body.data.map((e: { id: string }) => e.id)).not.toContain(event.id);
    const filtered = await api('GET', '/events?type=webhook.paused', { key });
    expect(filtered.status).toBe(422);
    expect(await api('GET', `/events?after=${event.id}`, { key })).toMatchObject({ status: 422 });
  });
});
