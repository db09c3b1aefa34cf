import { describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { notificationService } from '../../src/notifications/notification.service.ts';

async function gql(key: string, query: string, variables?: Record<string, unknown>) {
  const res = await api('POST', '/graphql', { key, body: { query, variables } });
  expect(res.status).toBe(200);
  return res.body as { data: any; errors?: { extensions: { code: string } }[] };
}

const LIST = `query($unreadOnly: Boolean, $first: Int, $after: String) {
  notifications(unreadOnly: $unreadOnly, first: $first, after: $after) {
    edges { node { id kind title body link data read readAt createdAt } }
    pageInfo { hasNextPage endCursor }
  }
}`;

describe('GraphQL notifications', () => {
  it('lists the key’s service-account notifications newest first, pages, filters unread and marks read', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['tickets:read'] });
    const other = await ws.key();
    const userId = key.record.serviceUserId;
    const sent = [];
    for (const n of [1, 2, 3]) {
      sent.push(...(await notificationService.notify(ws.workspace.id, [userId], { kind: 'ticket.created', title: `Ticket ${n}`, body: `Body ${n}`, data: { ticketId: n } })));
    }
    const [foreign] = await notificationService.notify(ws.workspace.id, [other.record.serviceUserId, ws.admin.id], {
      kind: 'webhook.paused',
      title: 'Paused',
      body: 'A subscription was paused',
      link: '/settings/webhooks',
    });

    const page1 = await gql(key.value, LIST, { first: 2 });
    expect(page1.errors).toBeUndefined();
    expect(page1.data.notifications.edges.map((e: any) => e.node.title)).toEqual(['Ticket 3', 'Ticket 2']);
    expect(page1.data.notifications.edges[0].node).toEqual({
      id: sent[2].id,
      kind: 'ticket.created',
      title: 'Ticket 3',
      body: 'Body 3',
      link: null,
      data: { ticketId: 3 },
      read: false,
      readAt: null,
      createdAt: sent[2].createdAt.toISOString(),
    });
    expect(page1.data.notifications.pageInfo.hasNextPage).toBe(true);
    const page2 = await gql(key.value, LIST, { first: 2, after: page1.data.notifications.pageInfo.endCursor });
    expect(page2.data.notifications.edges.map((e: any) => e.node.title)).toEqual(['Ticket 1']);
    expect(page2.data.notifications.pageInfo.hasNextPage).toBe(false);

    const mark = `mutation($id: Int!) { markNotificationRead(id: $id) { id read readAt } }`;
    const marked = await gql(key.value, mark, { id: sent[1].id });
    expect(marked.data.markNotificationRead).toEqual({ id: sent[1].id, read: true, readAt: expect.any(String) });
    const again = await gql(key.value, mark, { id: sent[1].id });
    expect(again.data.markNotificationRead.readAt).toBe(marked.data.markNotificationRead.readAt);

    const unread = await gql(key.value, LIST, { unreadOnly: true });
    expect(unread.data.notifications.edges.map((e: any) => e.node.id)).toEqual([sent[2].id, sent[0].id]);

    // Another account's notice is not this key's to read or mark.
    expect((await gql(key.value, mark, { id: foreign.id })).errors?.[0].extensions.code).toBe('not_found');
    const otherList = await gql(other.value, LIST, {});
    expect(otherList.data.notifications.edges.map((e: any) => e.node.id)).toEqual([foreign.id]);
    expect(otherList.data.notifications.edges[0].node.link).toBe('/settings/webhooks');
  });

  it('needs a caller, and refuses cursors it did not issue', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key();
    const anonymous = await api('POST', '/graphql', { body: { query: '{ notifications { edges { node { id } } } }' } });
    expect(anonymous.body.errors[0].extensions.code).toBe('unauthenticated');
    const bad = await gql(key.value, LIST, { after: 'bm9wZQ' });
    expect(bad.errors?.[0].extensions.code).toBe('validation_failed');
    const negative = await gql(key.value, LIST, { first: -1 });
    expect(negative.errors?.[0].extensions.code).toBe('validation_failed');
  });
});
