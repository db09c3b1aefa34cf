// What a paused-subscription notice (in the app and by e-mail) and the delivery statistics show
// follows the same read-time rule as the delivery log: a reader whose role sees some boards only
// hears of a subscription its role opens, and counts only deliveries of events it may see.
import { beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { newId } from '../../../src/ids.ts';
import { writeEvent } from '../../../src/events/event.outbox.ts';
import { workspaceRepository } from '../../../src/workspaces/workspace.repository.ts';
import { notificationService } from '../../../src/notifications/notification.service.ts';
import { emailConditionNotice } from '../../../src/webhooks/delivery/condition-notice-mail.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { billingBoard, supportBoard, type Ws } from '../../tickets/helpers.ts';
import { createSubscription, updateSubscription, writeDelivery } from '../fixtures.ts';

const LIST = '{ notifications { edges { node { id title data } } } }';

describe('notices and statistics follow the read-time visibility', () => {
  let ws: Ws;
  let boardA: string;
  let boardB: string;
  let limitedKey: Awaited<ReturnType<Ws['key']>>;

  beforeAll(async () => {
    ws = await createTestWorkspace('Notice and stats visibility');
    boardA = supportBoard(ws).board.id;
    boardB = billingBoard(ws).board.id;
    await workspaceRepository.restrictRole(ws.roles.agent.id, [boardA]);
    await prisma.role.update({ where: { id: ws.roles.agent.id }, data: { permissions: ['tickets.write', 'webhooks.manage'] } });
    limitedKey = await ws.key({ role: ws.roles.agent.id, scopes: ['webhooks:manage', 'tickets:read'] });
  });

  const pausedNotice = (userIds: number[], sub: { id: string; url: string }) =>
    notificationService.notify(ws.workspace.id, userIds, { kind: 'webhook.paused', title: `Webhook paused: ${sub.url}`, body: sub.url, data: { subscriptionId: sub.id, url: sub.url } });

  it('lists a paused notice only when the reader’s role opens the subscription', async () => {
    const onB = await createSubscription(ws, { url: 'https://hooks.example.com/notice-board-b', boardIds: [boardB] });
    const onA = await createSubscription(ws, { url: 'https://hooks.example.com/notice-board-a', boardIds: [boardA] });
    await pausedNotice([limitedKey.record.serviceUserId], onB);
    await pausedNotice([limitedKey.record.serviceUserId], onA);
    const res = await api('POST', '/graphql', { key: limitedKey.value, body: { query: LIST } });
    expect(res.body.errors).toBeUndefined();
    expect(res.text).toContain('notice-board-a');
    expect(res.text).not.toContain('notice-board-b');
  });

  it('e-mails a paused notice only to administrators whose role opens the subscription', async () => {
    // An administrator (settings) whose role sees board A only, and one with every board.
    const limitedAdmin = await prisma.user.create({
      data: { workspaceId: ws.workspace.id, userName: `lim-${newId('u').slice(-8).toLowerCase()}`, fullName: 'Limited Admin', email: 'limited@example.test', roleId: ws.roles.agent.id, isAdmin: true },
    });
    const onB = await createSubscription(ws, { url: 'https://hooks.example.com/mail-board-b', boardIds: [boardB] });
    const notices = await pausedNotice([ws.admin.id, limitedAdmin.id], onB);
    const sent: string[] = [];
    await emailConditionNotice(
      { from: 'service@example.test', transport: { sendMail: async (m) => void sent.push((m.to as { address: string }).address) } },
      {
        kind: 'webhook.paused',
        subscription: { id: onB.id, url: onB.url, workspaceId: ws.workspace.id },
        recipients: notices.map((n) => ({ notificationId: n.id, email: n.userId === limitedAdmin.id ? 'limited@example.test' : 'full@example.test', fullName: 'x' })),
      },
    );
    expect(sent).toEqual(['full@example.test']);
  });

  it('counts in the statistics only the deliveries of events the caller sees', async () => {
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/stats', boardIds: [] });
    for (const [boardId, status] of [[boardA, 'succeeded'], [boardB, 'failed'], [boardB, 'failed']] as const) {
      const event = await writeEvent(prisma, { workspace: ws.workspace, type: 'ticket.created', actor: null, boardId, data: { id: 1 } });
      const delivery = await writeDelivery(event.id, sub.id);
      await prisma.deliveryAttempt.create({
        data: { id: newId('att'), deliveryId: delivery.id, subscriptionId: sub.id, eventId: event.id, eventType: event.type, attempt: 1, trigger: 'scheduled', status, durationMs: 5, payload: '{}', attemptedAt: new Date(), workflowId: delivery.workflowId },
      });
    }
    await updateSubscription(sub.id, { boardIds: [boardA] });
    const limited = await api('GET', `/webhooks/${sub.id}/stats`, { key: limitedKey.value });
    expect(limited.status).toBe(200);
    expect({ attempts: limited.body.attempts, failed: limited.body.failed }).toEqual({ attempts: 1, failed: 0 });
    const every = await api('GET', `/webhooks/${sub.id}/stats`, { key: (await ws.key({ scopes: ['webhooks:manage'] })).value });
    expect({ attempts: every.body.attempts, failed: every.body.failed }).toEqual({ attempts: 3, failed: 2 });
  });
});
