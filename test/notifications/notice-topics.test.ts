// Webhook notices apart from ticket notices, the unread count and mark-all-read: each scoped to
// the caller's own notices in its workspace, and to those its role may read.
import { describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { notificationService } from '../../src/notifications/notification.service.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { billingBoard, supportBoard } from '../tickets/helpers.ts';
import { createSubscription } from '../webhooks/fixtures.ts';

const LIST = `query($topic: NotificationTopic, $unreadOnly: Boolean) { notifications(topic: $topic, unreadOnly: $unreadOnly) { edges { node { id title read } } } }`;
const COUNT = `query($topic: NotificationTopic) { unreadNotificationCount(topic: $topic) }`;
const MARK_ALL = `mutation($topic: NotificationTopic, $throughId: Int) { markAllNotificationsRead(topic: $topic, throughId: $throughId) }`;

async function gql(key: string, query: string, variables?: Record<string, unknown>) {
  const res = await api('POST', '/graphql', { key, body: { query, variables } });
  expect(res.status).toBe(200);
  return res.body as { data: any; errors?: { extensions: { code: string } }[] };
}
const titles = (r: { data: any }) => r.data.notifications.edges.map((e: any) => e.node.title);

describe('notice topics, unread count and mark-all-read', () => {
  it('lists webhook and ticket notices apart, counts the unread ones and marks all of one topic read', async () => {
    const ws = await createTestWorkspace('Notice topics');
    const key = await ws.key({ scopes: ['tickets:read'] });
    const userId = key.record.serviceUserId;
    const notice = async (title: string, kind: string, data: Record<string, string | number> = {}) =>
      (await notificationService.notify(ws.workspace.id, [userId], { kind, title, body: title, data }))[0];
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/topics' });
    await notice('Ticket 1', 'ticket.created', { boardId: supportBoard(ws).board.id, ticketId: 1 });
    await notice('Paused', 'webhook.paused', { subscriptionId: sub.id });
    await notice('Ticket 2', 'ticket.created', { boardId: supportBoard(ws).board.id, ticketId: 2 });
    const disabled = await notice('Disabled', 'webhook.disabled', { subscriptionId: sub.id });

    expect(titles(await gql(key.value, LIST, { topic: 'webhooks' }))).toEqual(['Disabled', 'Paused']);
    expect(titles(await gql(key.value, LIST, { topic: 'tickets' }))).toEqual(['Ticket 2', 'Ticket 1']);
    expect(titles(await gql(key.value, LIST, {}))).toEqual(['Disabled', 'Ticket 2', 'Paused', 'Ticket 1']);
    expect((await gql(key.value, COUNT, {})).data.unreadNotificationCount).toBe(4);
    expect((await gql(key.value, COUNT, { topic: 'webhooks' })).data.unreadNotificationCount).toBe(2);

    // Up to the newest the person saw: a notice that arrives meanwhile stays unread.
    const late = await notice('Paused again', 'webhook.paused', { subscriptionId: sub.id });
    const marked = await gql(key.value, MARK_ALL, { topic: 'webhooks', throughId: disabled.id });
    expect(marked.errors).toBeUndefined();
    expect(marked.data.markAllNotificationsRead).toBe(2);
    expect(titles(await gql(key.value, LIST, { topic: 'webhooks', unreadOnly: true }))).toEqual(['Paused again']);
    expect((await gql(key.value, COUNT, { topic: 'tickets' })).data.unreadNotificationCount).toBe(2);
    expect((await gql(key.value, COUNT, {})).data.unreadNotificationCount).toBe(3);

    // Everything, then nothing is left to mark.
    expect((await gql(key.value, MARK_ALL, {})).data.markAllNotificationsRead).toBe(3);
    expect((await gql(key.value, MARK_ALL, {})).data.markAllNotificationsRead).toBe(0);
    expect((await gql(key.value, COUNT, {})).data.unreadNotificationCount).toBe(0);
    expect((await prisma.notification.findUniqueOrThrow({ where: { id: late.id } })).readAt).not.toBeNull();
  }, 120_000);

  it('touches only the caller’s own notices: another account’s, another workspace’s and those its role may not read stay unread', async () => {
    const ws = await createTestWorkspace('Notice topics, scope');
    const other = await createTestWorkspace('Notice topics, elsewhere');
    await workspaceRepository.restrictRole(ws.roles.agent.id, [supportBoard(ws).board.id]);
    const key = await ws.key({ role: ws.roles.agent.id, scopes: ['tickets:read'] });
    const colleague = await ws.key({ scopes: ['tickets:read'] });
    const stranger = await other.key({ scopes: ['tickets:read'] });
    const notify = async (ws: { workspace: { id: number } }, userId: number, kind: string, data: Record<string, string | number>) =>
      (await notificationService.notify(ws.workspace.id, [userId], { kind, title: kind, body: kind, data }))[0];
    const mine = await notify(ws, key.record.serviceUserId, 'ticket.created', { boardId: supportBoard(ws).board.id, ticketId: 1 });
    const hidden = await notify(ws, key.record.serviceUserId, 'ticket.created', { boardId: billingBoard(ws).board.id, ticketId: 2 });
    const colleagues = await notify(ws, colleague.record.serviceUserId, 'ticket.created', { boardId: supportBoard(ws).board.id, ticketId: 3 });
    const strangers = await notify(other, stranger.record.serviceUserId, 'ticket.created', { ticketId: 4 });

    expect((await gql(key.value, COUNT, {})).data.unreadNotificationCount).toBe(1);
    // A throughId beyond anything (another's notice id, the largest Int) changes nothing about whose notices are marked.
    expect((await gql(key.value, MARK_ALL, { throughId: 2_147_483_647 })).data.markAllNotificationsRead).toBe(1);
    const readAt = async (id: number) => (await prisma.notification.findUniqueOrThrow({ where: { id } })).readAt;
    expect(await readAt(mine.id)).not.toBeNull();
    for (const n of [hidden, colleagues, strangers]) expect(await readAt(n.id)).toBeNull();
  }, 120_000);

  it('refuses hostile input before any work, as GraphQL errors', async () => {
    const ws = await createTestWorkspace('Notice topics, hostile');
    const key = await ws.key({ scopes: ['tickets:read'] });
    await notificationService.notify(ws.workspace.id, [key.record.serviceUserId], { kind: 'ticket.created', title: 't', body: 't', data: {} });
    const anonymous = await api('POST', '/graphql', { body: { query: MARK_ALL, variables: {} } });
    expect(anonymous.body.errors[0].extensions.code).toBe('unauthenticated');
    expect((await api('POST', '/graphql', { body: { query: COUNT } })).body.errors[0].extensions.code).toBe('unauthenticated');
    for (const variables of [{ topic: 'secrets' }, { topic: 'webhooks; DROP' }, { throughId: 2 ** 31 }, { throughId: 'all' }, { topic: { $ne: null } }]) {
      const res = await api('POST', '/graphql', { key: key.value, body: { query: MARK_ALL, variables } });
      expect(res.status, JSON.stringify(variables)).toBeLessThan(500);
      expect(res.body.errors?.length, JSON.stringify(variables)).toBeGreaterThan(0);
      expect(res.body.data ?? null).toBeNull();
    }
    const long = await api('POST', '/graphql', { key: key.value, body: { query: COUNT, variables: { topic: 'x'.repeat(10_000) } } });
    expect(long.status).toBe(400);
    expect(long.body.errors[0].message).toMatch(/NotificationTopic/);
    expect(await prisma.notification.count({ where: { workspaceId: ws.workspace.id, readAt: { not: null } } })).toBe(0);
  }, 120_000);
});
