// A notice about a ticket is shown only while the reader's role sees the ticket's board: decided
// when it is read, so narrowing a role also hides the notices it was sent before.
import { describe, expect, it } from 'vitest';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { notificationService } from '../../src/notifications/notification.service.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { billingBoard, supportBoard } from '../tickets/helpers.ts';
import { createSubscription } from '../webhooks/fixtures.ts';

const LIST = `{ notifications { edges { node { id title } } } }`;
const MARK = `mutation($id: Int!) { markNotificationRead(id: $id) { id } }`;

async function gql(key: string, query: string, variables?: Record<string, unknown>) {
  const res = await api('POST', '/graphql', { key, body: { query, variables } });
  expect(res.status).toBe(200);
  return res.body as { data: any; errors?: { extensions: { code: string } }[] };
}

describe('notices and board visibility at read time', () => {
  it('hides a ticket notice of a board the reader’s role does not see, in the list and when marked read', async () => {
    const ws = await createTestWorkspace('Notice visibility');
    await workspaceRepository.restrictRole(ws.roles.agent.id, [supportBoard(ws).board.id]);
    const key = await ws.key({ role: ws.roles.agent.id, scopes: ['tickets:read'] });
    const userId = key.record.serviceUserId;
    const notice = async (title: string, kind: string, data: Record<string, string | number>) =>
      (await notificationService.notify(ws.workspace.id, [userId], { kind, title, body: title, data }))[0];
    const billing = await notice('Billing ticket', 'ticket.created', { boardId: billingBoard(ws).board.id, ticketId: 1 });
    await notice('Support ticket', 'ticket.created', { boardId: supportBoard(ws).board.id, ticketId: 2 });
    // A subscription on the board the role sees (one of another board's is hidden: notice-and-stats-visibility.test.ts).
    const onSupport = await createSubscription(ws, { url: 'https://hooks.example.com/support', boardIds: [supportBoard(ws).board.id] });
    await notice('Paused', 'webhook.paused', { subscriptionId: onSupport.id });

    // Sent without looking at the role (as a notice sent before the role was narrowed would be).
    const list = await gql(key.value, LIST);
    expect(list.errors).toBeUndefined();
    expect(list.data.notifications.edges.map((e: any) => e.node.title)).toEqual(['Paused', 'Support ticket']);
    const marked = await gql(key.value, MARK, { id: billing.id });
    expect(marked.errors?.[0]?.extensions.code).toBe('not_found');
  }, 120_000);
});
