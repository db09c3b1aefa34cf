// What an operational event (webhook.paused, .delivery_failed …) discloses. It is about another
// subscription, so who may read it follows that subscription's boards, decided at read time (the
// watcher's own boards may have changed since); and what it carries of the other subscription's
// URL stops at the origin, since Slack, Teams and Zapier URLs hold tokens in the path or query.
import { beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { deliveryRepository } from '../../workflows/delivery/delivery.repository.ts';
import { writeConditionEvent, writeDeliveryFailedEvent } from '../../workflows/delivery/operational-events.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { billingBoard, supportBoard, type Ws } from '../tickets/helpers.ts';
import { createEvent, createSubscription, updateSubscription } from './fixtures.ts';

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
    const delivery = await deliveryRepository.create(event.id, watcherId);
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
