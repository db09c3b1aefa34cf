// GET /tickets/{id}/history: who did what and when, oldest first, with the same paging as every
// list; a change made with an API key is attributed to that key's service account (channel api).
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { createTicket, supportBoard, type Ws } from './helpers.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';

describe('GET /tickets/{id}/history', () => {
  let ws: Ws;
  let creator: Awaited<ReturnType<Ws['key']>>;
  let editor: Awaited<ReturnType<Ws['key']>>;
  beforeAll(async () => {
    ws = await createTestWorkspace('Ticket history');
    creator = await ws.key({ name: 'Creator' });
    editor = await ws.key({ name: 'Editor', scopes: ['tickets:read', 'tickets:write'] });
  });

  it('lists every change oldest first, attributed to the service account of the key that made it', async () => {
    const s = supportBoard(ws);
    const t = await createTicket(ws, creator.value);
    expect((await api('PATCH', `/tickets/${t.id}`, { key: editor.value, body: { subject: 'Renamed', state: s.state('In progress').id } })).status).toBe(200);
    const comment = await api('POST', `/tickets/${t.id}/comments`, { key: creator.value, body: { body: 'Hello' } });
    const res = await api('GET', `/tickets/${t.id}/history`, { key: editor.value });
    expect(res.status, res.text).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    const service = (k: typeof creator, name: string) => ({ id: k.record.serviceUserId, name });
    expect(res.body.data).toEqual([
      { id: expect.any(Number), ticketId: t.id, action: 'created', actor: service(creator, 'Creator (API key)'), channel: 'api', changes: [], createdAt: expect.any(String) },
      { id: expect.any(Number), ticketId: t.id, action: 'updated', actor: service(editor, 'Editor (API key)'), channel: 'api', changes: [{ field: 'subject', oldValue: t.subject, newValue: 'Renamed' }], createdAt: expect.any(String) },
      { id: expect.any(Number), ticketId: t.id, action: 'state_changed', actor: service(editor, 'Editor (API key)'), channel: 'api', changes: [{ field: 'state', oldValue: 'New', newValue: 'In progress' }], createdAt: expect.any(String) },
      { id: expect.any(Number), ticketId: t.id, action: 'comment_added', actor: service(creator, 'Creator (API key)'), channel: 'api', changes: [{ field: 'comment', oldValue: null, newValue: comment.body.id }], createdAt: expect.any(String) },
    ]);
    // GET /me names the same service account.
    expect((await api('GET', '/me', { key: editor.value })).body.serviceUser.id).toBe(editor.record.serviceUserId);

    // Paged like every list.
    const ids: number[] = [];
    let query = 'limit=1';
    for (;;) {
      const page = await api('GET', `/tickets/${t.id}/history?${query}`, { key: editor.value });
      expect(page.body.data.length).toBeLessThanOrEqual(1);
      ids.push(...page.body.data.map((e: any) => e.id));
      if (!page.body.nextCursor) break;
      expect(page.headers.get('link')).toContain('rel="next"');
      query = `limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`;
    }
    expect(ids).toEqual(res.body.data.map((e: any) => e.id));
    expect((await api('GET', `/tickets/${t.id}/history?limit=0`, { key: editor.value })).status).toBe(422);
  });

  it('answers 404 for a ticket the key’s role does not see, or none at all', async () => {
    const t = await createTicket(ws, creator.value);
    const billing = ws.boards.find((b) => b.name === 'Billing')!;
    await workspaceRepository.restrictRole(ws.roles.viewer.id, [billing.id]);
    const billingOnly = await ws.key({ name: 'Billing only', scopes: ['tickets:read'], role: ws.roles.viewer.id });
    const hidden = await api('GET', `/tickets/${t.id}/history`, { key: billingOnly.value });
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('not_found');
    expect((await api('GET', '/tickets/2147483647/history', { key: creator.value })).status).toBe(404);
    expect((await api('GET', '/tickets/abc/history', { key: creator.value })).status).toBe(404);
    const kbOnly = await ws.key({ name: 'KB', scopes: ['kb:read'] });
    expect((await api('GET', `/tickets/${t.id}/history`, { key: kbOnly.value })).status).toBe(403);
  });
});
