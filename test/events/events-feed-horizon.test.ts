// @vitest-environment postgres
// GET /events on PostgreSQL, with a transaction held open across another's commit: the later
// commit stays out of the feed until the earlier one ends, then both appear, in commit order.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { createTicket } from '../tickets/helpers.ts';
import { prisma } from '../../src/db/db.ts';
import { newId } from '../../src/ids.ts';
import { feed, follow } from './feed.ts';

describe('GET /events on PostgreSQL', () => {
  it('an event committed while an earlier transaction is open appears only after that one, and after it', { timeout: 60_000 }, async () => {
    const held = await createTestWorkspace('Events feed horizon');
    const writer = await held.key({ name: 'Writer' });
    const t = await createTicket(held, writer.value);
    const first = await prisma.event.findFirstOrThrow({ where: { ticketId: t.id } });
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      // A transaction that writes an event and stays open: it began before the next change.
      await client.query('BEGIN');
      const slowId = newId('evt');
      await client.query(
        `INSERT INTO "Event" ("id", "workspaceId", "type", "actorId", "boardId", "ticketId", "payload")
         VALUES ($1, $2, 'ticket.updated', $3, $4, $5, $6)`,
        [slowId, held.workspace.id, writer.record.serviceUserId, t.boardId, t.id, JSON.stringify({ id: slowId, type: 'ticket.updated', occurredAt: new Date().toISOString(), workspace: held.workspace.domain, actor: { id: writer.record.serviceUserId, name: 'Writer' }, changes: [], data: t })],
      );
      const fast = await api('PATCH', `/tickets/${t.id}`, { key: writer.value, body: { subject: 'Committed first' } });
      expect(fast.status).toBe(200);
      const fastId = (await prisma.event.findFirstOrThrow({ where: { ticketId: t.id, type: 'ticket.updated' } })).id;
      const page = await feed(writer.value, `after=${first.id}`);
      expect(page.body.data).toEqual([]);
      expect((await feed(writer.value)).body.data.map((e: any) => e.id)).toEqual([first.id]);
      await client.query('COMMIT');
      const seen = await follow(writer.value, first.id, (s) => s.length >= 2, { polls: 500 });
      expect(seen.map((e) => e.id)).toEqual([slowId, fastId]);
    } finally {
      await client.end();
    }
  });
});
