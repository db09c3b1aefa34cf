// @vitest-environment postgres
// The PostgreSQL listener of db.listen has a connection of its own: killed, it comes back, tells
// its handlers (events may have been missed meanwhile), and hears again.
import { describe, expect, it } from 'vitest';
import { db, prisma } from '../../src/db/db.ts';
import { writeEvent } from '../../src/events/event.outbox.ts';
import { EVENT_OUTBOX_CHANNEL } from '../../src/webhooks/fanout/outbox-relay.ts';
import { createTestWorkspace } from '../support/fixtures.ts';

describe('event_outbox notifications on PostgreSQL', () => {
  it('the listening connection killed, it reconnects, tells its handler, and hears again', { timeout: 60_000 }, async () => {
    const ws = await createTestWorkspace();
    const heard: (string | undefined)[] = [];
    const unlisten = await db.listen(EVENT_OUTBOX_CHANNEL, (payload) => heard.push(payload));
    try {
      const killed = await prisma.$queryRawUnsafe<{ ok: boolean }[]>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
      );
      expect(killed).toEqual([{ ok: true }]);
      await expect.poll(() => heard, { timeout: 30_000, interval: 100 }).toEqual([undefined]);
      await writeEvent(prisma, { workspace: ws.workspace, type: 'ticket.created', actor: { id: ws.admin.id, name: ws.admin.fullName }, data: { id: 2 } });
      await expect.poll(() => heard, { timeout: 10_000, interval: 100 }).toEqual([undefined, '']);
    } finally {
      await unlisten();
    }
  });
});
