// GET /events: each entry the exact webhook body, filters, paging, catch-up with `after`, role
// visibility, and a consumer following the feed under concurrent writes (misses nothing, sees
// nothing twice). A transaction held open across another's commit, on PostgreSQL:
// events-feed-horizon.test.ts.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { feed, follow } from './feed.ts';
import { createTicket, gql, supportBoard, type Ws } from '../tickets/helpers.ts';
import { prisma } from '../../src/db/db.ts';
import { deliveryBody } from '../../src/webhooks/message/webhook-sender.ts';
import { writeEvent } from '../../src/events/event.outbox.ts';
import { workspaceRepository } from '../../src/workspaces/workspace.repository.ts';
import { newId } from '../../src/ids.ts';

type Key = Awaited<ReturnType<Ws['key']>>;

describe('GET /events', () => {
  let ws: Ws;
  let key: Key;
  let ticket: any;
  let stored: Awaited<ReturnType<typeof prisma.event.findMany>>;

  beforeAll(async () => {
    ws = await createTestWorkspace('Events feed');
    key = await ws.key({ name: 'Feed', scopes: ['tickets:read', 'tickets:write'] });
    const s = supportBoard(ws);
    ticket = await createTicket(ws, key.value);
    expect((await api('PATCH', `/tickets/${ticket.id}`, { key: key.value, body: { subject: 'Checkout still fails', state: s.state('In progress').id } })).status).toBe(200);
    expect((await api('POST', `/tickets/${ticket.id}/comments`, { key: key.value, body: { body: 'On it' } })).status).toBe(201);
    // A webhook test event of the workspace: never in the feed.
    await prisma.$transaction((tx) =>
      writeEvent(tx, { type: 'webhook.test', workspace: ws.workspace, actor: { id: ws.admin.id, name: 'Test Admin' }, data: { subscriptionId: 'wh_x', url: 'https://x.invalid', message: 'test' } }),
    );
    stored = await prisma.event.findMany({ where: { workspaceId: ws.workspace.id, ticketId: { not: null } }, orderBy: { seq: 'asc' } });
    expect(stored.map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated', 'ticket.state_changed', 'ticket.comment_added']);
    // The feed shows them once every transaction that began before theirs has ended, on the whole
    // PostgreSQL server (in CI, other test files' too).
    await vi.waitFor(async () => expect((await feed(key.value)).body.data).toHaveLength(stored.length), { timeout: 20_000, interval: 200 });
  });

  it('answers the ticket events newest first, each exactly the body a webhook delivery sends; no webhook.test', async () => {
    const res = await feed(key.value);
    expect(res.status, res.text).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.data.map((e: any) => e.id)).toEqual(stored.map((e) => e.id).reverse());
    // Byte for byte: the JSON of each entry is the delivery body of that event.
    const entries = JSON.parse(res.text).data as unknown[];
    for (const [i, entry] of entries.entries()) expect(JSON.stringify(entry)).toBe(deliveryBody(stored[stored.length - 1 - i].payload));
    // The versions in `data` grow with each change.
    expect(res.body.data.map((e: any) => e.data.version)).toEqual([3, 2, 2, 1]);
  });

  it('filters by type, ticketId, since and until, and pages with limit and cursor', async () => {
    const other = await createTicket(ws, key.value, { subject: 'Another' });
    // The feed serves rows below its horizon (event-feed.repository.ts): a write still running
    // elsewhere (a key's last-use stamp, say) holds the newest event back for that long.
    await vi.waitFor(async () => {
      const byType = await feed(key.value, 'type=ticket.created');
      expect(byType.body.data.map((e: any) => e.data.id)).toEqual([other.id, ticket.id]);
    }, 10_000);
    const byTicket = await feed(key.value, `ticketId=${ticket.id}`);
    expect(byTicket.body.data.map((e: any) => e.id)).toEqual(stored.map((e) => e.id).reverse());
    const createdAt = stored[0].occurredAt;
    const untilFirst = await feed(key.value, `until=${new Date(createdAt.getTime() + 1).toISOString()}&ticketId=${ticket.id}`);
    expect(untilFirst.body.data.map((e: any) => e.id)).toEqual([stored[0].id]);
    const sinceOther = await feed(key.value, `since=${encodeURIComponent((await prisma.event.findFirstOrThrow({ where: { ticketId: other.id } })).occurredAt.toISOString())}`);
    expect(sinceOther.body.data.map((e: any) => e.data.id)).toContain(other.id);
    expect(sinceOther.body.data.every((e: any) => e.occurredAt >= sinceOther.body.data.at(-1).occurredAt)).toBe(true);

    const all: string[] = [];
    let query = 'limit=2';
    for (;;) {
      const page = await feed(key.value, query);
      expect(page.status, page.text).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      all.push(...page.body.data.map((e: any) => e.id));
      if (!page.body.nextCursor) break;
      expect(page.headers.get('link')).toContain('cursor=');
      query = `limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`;
    }
    expect(all).toEqual((await feed(key.value)).body.data.map((e: any) => e.id));
    expect(new Set(all).size).toBe(all.length);
  });

  it('catches up after an event: oldest first, and a nextCursor even when nothing is new', async () => {
    const res = await feed(key.value, `after=${stored[0].id}&ticketId=${ticket.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((e: any) => e.id)).toEqual(stored.slice(1).map((e) => e.id));
    expect(res.body.nextCursor).toEqual(expect.any(String));
    const empty = await feed(key.value, `cursor=${encodeURIComponent(res.body.nextCursor)}&ticketId=${ticket.id}`);
    expect(empty.body).toEqual({ data: [], nextCursor: expect.any(String) });
    expect((await api('POST', `/tickets/${ticket.id}/comments`, { key: key.value, body: { body: 'Fixed' } })).status).toBe(201);
    // An event shows once every transaction that began before its own has ended, on the whole
    // PostgreSQL server (in CI, other test files' too): polled, as a consumer does.
    const fromEmpty = () => feed(key.value, `cursor=${encodeURIComponent(empty.body.nextCursor)}&ticketId=${ticket.id}`);
    await expect.poll(async () => (await fromEmpty()).body.data.map((e: any) => [e.type, e.data.version]), { timeout: 20_000, interval: 200 }).toEqual([['ticket.comment_added', 4]]);
    const next = await fromEmpty();
    // From the last id processed, the same.
    const byId = await feed(key.value, `after=${stored.at(-1)!.id}&ticketId=${ticket.id}`);
    expect(byId.body.data.map((e: any) => e.id)).toEqual(next.body.data.map((e: any) => e.id));
  });

  it('refuses what it cannot serve: unknown events, bad filters, a cursor of another list, a key without the scope', async () => {
    const unknown = await feed(key.value, `after=${newId('evt')}`);
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual([{ path: 'query/after', message: expect.stringContaining('not an event of this feed') }]);
    for (const q of ['type=webhook.test', 'ticketId=0', 'since=yesterday', 'after=wh_1', 'limit=101', 'cursor=abc.def', 'stat=open']) {
      const res = await feed(key.value, q);
      expect(res.status, `${q}: ${res.text}`).toBe(422);
    }
    const tickets = await api('GET', '/tickets?limit=1', { key: key.value });
    const foreign = await feed(key.value, `cursor=${encodeURIComponent(tickets.body.nextCursor)}`);
    expect(foreign.status).toBe(422);
    const noScope = await ws.key({ name: 'KB only', scopes: ['kb:read'] });
    expect((await feed(noScope.value)).status).toBe(403);
  });

  it('shows a key only the events of tickets its role sees', async () => {
    const limited = await createTestWorkspace('Events feed roles');
    const s = supportBoard(limited);
    const billing = limited.boards.find((b) => b.name === 'Billing')!;
    const writer = await limited.key({ name: 'Writer' });
    await workspaceRepository.restrictRole(limited.roles.viewer.id, [billing.id]);
    const reader = await limited.key({ name: 'Billing reader', scopes: ['tickets:read'], role: limited.roles.viewer.id });
    const hidden = await createTicket(limited, writer.value);
    const visible = await api('POST', '/tickets', {
      key: writer.value,
      body: { boardId: billing.id, subject: 'Invoice', requesterEmail: 'a@example.com', fields: billing.fields.filter((f) => f.required).map((f) => ({ fieldId: f.id, value: f.type === 'number' ? 1 : f.type === 'boolean' ? true : f.type === 'date' ? '2026-01-01' : f.options[0] ?? 'x' })) },
    });
    expect(visible.status, visible.text).toBe(201);
    expect((await api('PATCH', `/tickets/${hidden.id}`, { key: writer.value, body: { state: s.state('In progress').id } })).status).toBe(200);

    const res = await feed(reader.value);
    expect(res.body.data.map((e: any) => e.data.id)).toEqual([visible.body.id]);
    expect((await feed(writer.value)).body.data).toHaveLength(3);
    // An event of a ticket it does not see is no place to start from either.
    const hiddenEvent = await prisma.event.findFirstOrThrow({ where: { ticketId: hidden.id } });
    expect((await feed(reader.value, `after=${hiddenEvent.id}`)).status).toBe(422);
    // GraphQL answers the same.
    const viaGraphql = await gql(reader.value, '{ events(first: 10) { edges { node } pageInfo { hasNextPage } } }');
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data.events.edges.map((e: any) => e.node.data.id)).toEqual([visible.body.id]);
  });

  it('a consumer following the feed under concurrent writes misses nothing and sees nothing twice', { timeout: 120_000 }, async () => {
    const busy = await createTestWorkspace('Events feed concurrency');
    const writer = await busy.key({ name: 'Writers' });
    const start = await createTicket(busy, writer.value);
    const startEvent = await prisma.event.findFirstOrThrow({ where: { ticketId: start.id } });
    const tickets = await Promise.all(Array.from({ length: 4 }, (_, i) => createTicket(busy, writer.value, { subject: `Concurrent ${i}` })));

    // Writers change tickets concurrently (several requests in flight at once) while the consumer polls.
    let writing = true;
    const writers = Promise.all(
      tickets.map(async (t, i) => {
        for (let n = 0; n < 8; n++) {
          const res = await (n % 2
            ? api('POST', `/tickets/${t.id}/comments`, { key: writer.value, body: { body: `note ${i}.${n}` } })
            : api('PATCH', `/tickets/${t.id}`, { key: writer.value, body: { subject: `Concurrent ${i}, change ${n}` } }));
          expect(res.status, res.text).toBeLessThan(300);
        }
      }),
    ).finally(() => (writing = false));
    const expected = async () => (await prisma.event.findMany({ where: { workspaceId: busy.workspace.id, seq: { gt: startEvent.seq } }, select: { id: true } })).map((e) => e.id);
    const seen = await follow(writer.value, startEvent.id, (s) => !writing && s.length >= 4 + 4 * 8, { limit: 5 });
    await writers;
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual((await expected()).sort());
    // Each ticket's versions arrive in order.
    for (const t of tickets) {
      const versions = seen.filter((e) => e.data.id === t.id).map((e) => e.data.version);
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
    }
    // Nothing more comes.
    const after = await feed(writer.value, `after=${ids.at(-1)}`);
    expect(after.body.data).toEqual([]);
  });
});
