// LISTEN/NOTIFY through db.listen: the Event table's trigger notifies on commit only (on
// PostgreSQL the listener also comes back after its connection is killed:
// notify-listener-reconnect.test.ts).
import { describe, expect, it } from 'vitest';
import { db, prisma } from '../../src/db/db.ts';
import { writeEvent } from '../../src/events/event.outbox.ts';
import { EVENT_OUTBOX_CHANNEL } from '../../src/webhooks/fanout/outbox-relay.ts';
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
});
