// What an operational event (webhook.paused, .delivery_failed …) discloses. It is about another
// subscription, so who may read it follows that subscription's boards, decided at read time (the
// watcher's own boards may have changed since); and what it carries of the other subscription's
// URL stops at the origin, since Slack, Teams and Zapier URLs hold tokens in the path or query.
import type { Client } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOutboxRelay } from '../../../src/webhooks/fanout/outbox-relay.ts';
import { prisma } from '../../../src/db/db.ts';
import { workspaceRepository } from '../../../src/workspaces/workspace.repository.ts';
import { writeConditionEvent, writeDeliveryFailedEvent } from '../../../src/webhooks/delivery/operational-events.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { billingBoard, supportBoard, type Ws } from '../../tickets/helpers.ts';
import { createEvent, createSubscription, updateSubscription, writeDelivery } from '../fixtures.ts';

const SLACK_URL = 'https://hooks.slack.com/services/T0TOKEN/B0TOKEN/secretpathtoken?token=secretquerytoken';

describe('operational events', () => {
  let ws: Ws;
  let limitedKey: string;
  let watcherId: string;
  let aboutB: { id: string; eventId: string; deliveryId: string };
  let aboutA: { id: string; eventId: string; deliveryId: string };

  /** A pause of a new subscription on `boardIds`, and its delivery to the watcher. */
  async function pausedAndDelivered(boardIds: string[], url: string) {
    const sub = await createSubscription(ws, { url, boardIds, description: `about ${boardIds.join(',')}` });
    const event = await prisma.$transaction((tx) => writeConditionEvent(tx, 'webhook.paused', sub.id, 'failures', null, new Date()));
    const delivery = await writeDelivery(event.id, watcherId);
    await prisma.delivery.update({ where: { id: delivery.id }, data: { status: 'held' } });
    return { id: sub.id, eventId: event.id, deliveryId: delivery.id };
  }

  beforeAll(async () => {
    ws = await createTestWorkspace('Operational event disclosure');
    const a = supportBoard(ws).board.id;
    const b = billingBoard(ws).board.id;
    await workspaceRepository.restrictRole(ws.roles.agent.id, [a]);
    await prisma.role.update({ where: { id: ws.roles.agent.id }, data: { permissions: ['tickets.write', 'webhooks.manage'] } });
    limitedKey = (await ws.key({ role: ws.roles.agent.id, scopes: ['webhooks:manage', 'tickets:read'] })).value;
    // An administrator's watcher on boards A and B hears that X (board B) paused …
    const watcher = await createSubscription(ws, { url: 'https://hooks.example.com/watcher', boardIds: [a, b], events: ['webhook.paused'] });
    watcherId = watcher.id;
    aboutB = await pausedAndDelivered([b], 'https://hooks.example.com/board-b-only');
    aboutA = await pausedAndDelivered([a], 'https://hooks.example.com/board-a-only');
    // … and is narrowed to A afterwards: the limited role now opens the watcher.
    await updateSubscription(watcherId, { boardIds: [a] });
  });

  it('a key whose role sees board A only does not read of a board-B subscription in the delivery log', async () => {
    expect((await api('GET', `/webhooks/${watcherId}`, { key: limitedKey })).status).toBe(200);
    const log = await api('GET', `/webhooks/${watcherId}/deliveries`, { key: limitedKey });
    expect(log.status).toBe(200);
    const ids = log.body.data.map((e: { deliveryId: string }) => e.deliveryId);
    expect(ids).toContain(aboutA.deliveryId);
    expect(ids).not.toContain(aboutB.deliveryId);
    expect(log.text).not.toContain('board-b-only');
    expect((await api('GET', `/webhooks/${watcherId}/deliveries?eventId=${aboutB.eventId}`, { key: limitedKey })).text).not.toContain('board-b-only');
    expect((await api('POST', `/webhooks/${watcherId}/deliveries/${aboutB.deliveryId}/resend`, { key: limitedKey })).status).toBe(404);

    // A caller who sees every board reads both.
    const all = await api('GET', `/webhooks/${watcherId}/deliveries`, { key: (await ws.key()).value });
    expect(all.body.data.map((e: { deliveryId: string }) => e.deliveryId)).toEqual(expect.arrayContaining([aboutA.deliveryId, aboutB.deliveryId]));
  });

  it('an event about an every-board subscription is hidden from a board-limited caller', async () => {
    const everyBoard = await pausedAndDelivered([], 'https://hooks.example.com/every-board');
    const log = await api('GET', `/webhooks/${watcherId}/deliveries`, { key: limitedKey });
    expect(log.body.data.map((e: { deliveryId: string }) => e.deliveryId)).not.toContain(everyBoard.deliveryId);
  });

  it('keeps the boards its subscription had when written: a later change of that filter neither shows it nor hides it', async () => {
    const a = supportBoard(ws).board.id;
    const b = billingBoard(ws).board.id;
    // Paused while on board B, then moved to A: the A-only role still does not read of it.
    const moved = await pausedAndDelivered([b], 'https://hooks.example.com/was-board-b');
    await updateSubscription(moved.id, { boardIds: [a] });
    // Paused while on board A, then widened to every board: the A-only role still reads it.
    const widened = await pausedAndDelivered([a], 'https://hooks.example.com/was-board-a');
    await updateSubscription(widened.id, { boardIds: [] });
    const log = await api('GET', `/webhooks/${watcherId}/deliveries`, { key: limitedKey });
    const ids = log.body.data.map((e: { deliveryId: string }) => e.deliveryId);
    expect(ids).not.toContain(moved.deliveryId);
    expect(log.text).not.toContain('was-board-b');
    expect(ids).toContain(widened.deliveryId);
    expect((await api('POST', `/webhooks/${watcherId}/deliveries/${moved.deliveryId}/resend`, { key: limitedKey })).status).toBe(404);
  });

  it('goes to the subscriptions its boards reach when written, whatever the filter when relayed', async () => {
    const other = await createTestWorkspace('Operational event relay');
    const a = supportBoard(other).board.id;
    const b = billingBoard(other).board.id;
    await prisma.event.updateMany({ where: { relayedAt: null }, data: { relayedAt: new Date() } });
    const watcherOfA = await createSubscription(other, { url: 'https://hooks.example.com/watcher-a', boardIds: [a], events: ['webhook.paused'] });
    const onA = await createSubscription(other, { url: 'https://hooks.example.com/on-a', boardIds: [a] });
    const onB = await createSubscription(other, { url: 'https://hooks.example.com/on-b', boardIds: [b] });
    const pausedOnA = await prisma.$transaction((tx) => writeConditionEvent(tx, 'webhook.paused', onA.id, 'failures', null, new Date()));
    const pausedOnB = await prisma.$transaction((tx) => writeConditionEvent(tx, 'webhook.paused', onB.id, 'failures', null, new Date()));
    // Before the relay takes them: A's widened to every board, B's moved to A.
    await updateSubscription(onA.id, { boardIds: [] });
    await updateSubscription(onB.id, { boardIds: [a] });
    // No workflows: a client that only records the runs it wakes.
    const client = { workflow: { signalWithStart: async () => undefined } } as unknown as Client;
    expect(await createOutboxRelay({ client, taskQueue: 'about-boards' }).drain()).toBe(2);
    const recipients = async (eventId: string) => (await prisma.delivery.findMany({ where: { eventId }, select: { subscriptionId: true } })).map((d) => d.subscriptionId);
    expect(await recipients(pausedOnA.id)).toEqual([watcherOfA.id]);
    expect(await recipients(pausedOnB.id)).toEqual([]);
    expect(await prisma.event.findUniqueOrThrow({ where: { id: pausedOnB.id }, select: { aboutBoardIds: true } })).toEqual({ aboutBoardIds: [b] });
  });

  it('carries the origin of the other subscription’s URL, never its path or query', async () => {
    const sub = await createSubscription(ws, { url: SLACK_URL, boardIds: [] });
    const paused = await prisma.$transaction((tx) => writeConditionEvent(tx, 'webhook.paused', sub.id, 'failures', null, new Date()));
    const ticketEvent = await createEvent(ws);
    const failed = await prisma.$transaction((tx) =>
      writeDeliveryFailedEvent(tx, {
        subscriptionId: sub.id,
        deliveryId: 'dlv_x',
        eventId: ticketEvent.id,
        eventType: 'ticket.created',
        attempts: 8,
        httpStatus: 500,
        error: null,
        attemptedAt: new Date(),
      }),
    );
    for (const event of [paused, failed]) {
      const row = await prisma.event.findUniqueOrThrow({ where: { id: event.id } });
      const text = JSON.stringify(row.payload);
      expect(text).not.toContain('secretpathtoken');
      expect(text).not.toContain('secretquerytoken');
      expect((row.payload as { data: { subscriptionId: string; url: string } }).data).toMatchObject({ subscriptionId: sub.id, url: 'https://hooks.slack.com' });
    }
  });
});
