// Authorisation per object in the delivery log: a delivery (and its attempts) is shown, re-sent or
// recovered only for a caller who may see its event's ticket, whatever the subscription's boards
// are now. The case of the report: an all-boards subscription delivered a ticket of board B, was
// narrowed to board A, and a key whose role sees only A read the board-B ticket from the log.
import { beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { workspaceRepository } from '../../../src/workspaces/workspace.repository.ts';
import { recoverRepository } from '../../../src/webhooks/log/recover.repository.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { billingBoard, createTicket, supportBoard, type Ws } from '../../tickets/helpers.ts';
import { createSubscription, updateSubscription, writeDelivery } from '../fixtures.ts';

const HOUR = 60 * 60 * 1000;

describe('delivery log visibility per event', () => {
  let ws: Ws;
  let adminKey: string;
  let limitedKey: string;
  let subId: string;
  let visible: { deliveryId: string; attemptId: string; subject: string };
  let hidden: { deliveryId: string; attemptId: string; subject: string; heldId: string };

  /** A ticket through the API, its event's delivery to the subscription, and one failed attempt of it. */
  async function delivered(boardId: string, subject: string, extraFields: Record<string, unknown>) {
    const ticket = await createTicket(ws, adminKey, { boardId, subject, ...extraFields });
    const event = await prisma.event.findFirstOrThrow({ where: { ticketId: ticket.id } });
    const delivery = await writeDelivery(event.id, subId);
    const attempt = await prisma.deliveryAttempt.create({
      data: {
        id: `att_${delivery.id.slice(4)}`,
        deliveryId: delivery.id,
        subscriptionId: subId,
        eventId: event.id,
        eventType: event.type,
        attempt: 1,
        trigger: 'scheduled',
        status: 'failed',
        httpStatus: 503,
        durationMs: 5,
        payload: JSON.stringify(event.payload),
        attemptedAt: new Date(Date.now() - HOUR),
        workflowId: delivery.workflowId,
      },
    });
    await prisma.delivery.update({ where: { id: delivery.id }, data: { status: 'failed', attemptCount: 1 } });
    return { deliveryId: delivery.id, attemptId: attempt.id, subject };
  }

  beforeAll(async () => {
    ws = await createTestWorkspace('Delivery visibility');
    adminKey = (await ws.key()).value;
    const a = supportBoard(ws);
    const b = billingBoard(ws);
    // A role that manages webhooks but sees board A (Support) only.
    await workspaceRepository.restrictRole(ws.roles.agent.id, [a.board.id]);
    await prisma.role.update({ where: { id: ws.roles.agent.id }, data: { permissions: ['tickets.write', 'webhooks.manage'] } });
    limitedKey = (await ws.key({ role: ws.roles.agent.id, scopes: ['webhooks:manage', 'tickets:read'] })).value;

    // Every board at first, as an administrator saves it.
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/x', boardIds: [] });
    subId = sub.id;
    visible = await delivered(a.board.id, 'Visible on board A', { fields: [{ fieldId: a.product, value: 'Web' }] });
    const h = await delivered(b.board.id, 'Secret on board B', { fields: [{ fieldId: b.invoice, value: 'INV-1' }], priority: 'high' });
    // A second board-B delivery that is waiting (held), for the log's other branch.
    const ticket = await createTicket(ws, adminKey, { boardId: b.board.id, subject: 'Secret held on board B', fields: [{ fieldId: b.invoice, value: 'INV-2' }], priority: 'high' });
    const event = await prisma.event.findFirstOrThrow({ where: { ticketId: ticket.id } });
    const held = await writeDelivery(event.id, subId);
    await prisma.delivery.update({ where: { id: held.id }, data: { status: 'held' } });
    hidden = { ...h, heldId: held.id };
    // Narrowed to board A afterwards: the limited role now sees the subscription itself.
    await updateSubscription(subId, { boardIds: [a.board.id] });
  });

  it('the board-B ticket itself is hidden from the limited key (the premise)', async () => {
    const ticketId = (await prisma.event.findFirstOrThrow({ where: { deliveries: { some: { id: hidden.deliveryId } } } })).ticketId!;
    expect((await api('GET', `/tickets/${ticketId}`, { key: limitedKey })).status).toBe(404);
    expect((await api('GET', `/webhooks/${subId}`, { key: limitedKey })).status).toBe(200);
  });

  it('lists only the deliveries and attempts of tickets the caller sees', async () => {
    const log = await api('GET', `/webhooks/${subId}/deliveries`, { key: limitedKey });
    expect(log.status).toBe(200);
    const ids = log.body.data.map((e: { deliveryId: string }) => e.deliveryId);
    expect(ids).toContain(visible.deliveryId);
    expect(ids).not.toContain(hidden.deliveryId);
    expect(ids).not.toContain(hidden.heldId);
    expect(log.text).not.toContain('Secret');

    // Filters and statuses do not open a way around it.
    for (const query of ['?status=failed', '?status=held', `?eventId=${(await prisma.delivery.findUniqueOrThrow({ where: { id: hidden.deliveryId } })).eventId}`]) {
      const filtered = await api('GET', `/webhooks/${subId}/deliveries${query}`, { key: limitedKey });
      expect(filtered.status, query).toBe(200);
      expect(filtered.text, query).not.toContain('Secret');
    }

    // A caller who sees every board still sees everything.
    const all = await api('GET', `/webhooks/${subId}/deliveries`, { key: adminKey });
    const allIds = all.body.data.map((e: { deliveryId: string }) => e.deliveryId);
    expect(allIds).toEqual(expect.arrayContaining([visible.deliveryId, hidden.deliveryId, hidden.heldId]));
  });

  it('the same in GraphQL', async () => {
    const res = await api('POST', '/graphql', {
      key: limitedKey,
      body: { query: 'query($id: String!) { webhookDeliveries(subscriptionId: $id) { edges { node { deliveryId payload } } } }', variables: { id: subId } },
    });
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    const ids = res.body.data.webhookDeliveries.edges.map((e: { node: { deliveryId: string } }) => e.node.deliveryId);
    expect(ids).toContain(visible.deliveryId);
    expect(res.text).not.toContain('Secret');
  });

  it('does not resend a delivery of a hidden ticket, by delivery or attempt id (404)', async () => {
    for (const id of [hidden.deliveryId, hidden.attemptId]) {
      const res = await api('POST', `/webhooks/${subId}/deliveries/${id}/resend`, { key: limitedKey });
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('recovers only deliveries of tickets the caller sees', async () => {
    const since = new Date(Date.now() - 2 * HOUR);
    const until = new Date();
    const limited = await recoverRepository.failedInWindow(subId, since, until, null, 100, [supportBoard(ws).board.id]);
    expect(limited.map((c) => c.id)).toEqual([visible.deliveryId]);
    const every = await recoverRepository.failedInWindow(subId, since, until, null, 100, null);
    expect(every.map((c) => c.id).sort()).toEqual([visible.deliveryId, hidden.deliveryId].sort());
  });
});
