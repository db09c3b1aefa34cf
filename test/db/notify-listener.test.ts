// LISTEN/NOTIFY through db.listen: the Event table's trigger notifies on commit only, and the
// PostgreSQL listener's own connection comes back after it is killed, telling its handlers.
import { describe, expect, it } from 'vitest';
import { db, prisma } from '../../src/db/db.ts';
import { writeEvent } from '../../src/events/event.outbox.ts';
import { EVENT_OUTBOX_CHANNEL } from '../../src/webhooks/outbox-relay.ts';
import { createTestWorkspace } from '../support/fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;
const write = (ws: Workspace, tx: Parameters<typeof writeEvent>[0] = prisma) =>
  writeEvent(tx, { workspace: ws.workspace, type: 'ticket.created', actor: { id: ws.admin.id, name: ws.admin.fullName }, data: { id: 1 } });

describe('event_outbox notifications', () => {
  it('a committed event notifies; a rolled-back one does not', async () => {
    const ws = await createTestWorkspace();
    const heard: (string | undefined)[] = [];
    const unlisten = await db.listen(EVENT_OUTBOX_CHANNEL, (payload) => heard.push(payload));
    try {
      await expect(
        prisma.$transaction(async (tx) => {
          await write(ws, tx);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await write(ws);
      // Had the rolled-back one notified, its notification would have come first.
      await expect.poll(() => heard.length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(heard).toEqual(['']);
    } finally {
      await unlisten();
    }
  });

  it.runIf(process.env.DATABASE_URL)('PostgreSQL: the listening connection killed, it reconnects, tells its handler, and hears again', { timeout: 60_000 }, async () => {
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
      await write(ws);
      await expect.poll(() => heard, { timeout: 10_000, interval: 100 }).toEqual([undefined, '']);
    } finally {
      await unlisten();
    }
  });
});
