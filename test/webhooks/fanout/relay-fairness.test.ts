// The relay's claim of outbox events is fair across workspaces: a workspace's backlog does not
// hold back another's next event, turns go round-robin, and every event is still claimed once
// (no Temporal here: the claim is the database's part of the relay).
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { newId } from '../../../src/ids.ts';
import { relayRepository } from '../../../src/webhooks/fanout/relay.repository.ts';
import { createTestWorkspace, ensureMigrated } from '../../support/fixtures.ts';
import { createEvent } from '../fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

/** `n` events of the workspace written at once (as a bulk import would), in one statement. */
async function backlog(ws: Workspace, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => newId('evt'));
  await prisma.event.createMany({
    data: ids.map((id) => ({ id, workspaceId: ws.workspace.id, type: 'ticket.updated', actorId: ws.admin.id, payload: { id } })),
  });
  return ids;
}

const LEASE_MS = 60_000;
const claim = (limit: number) => relayRepository.claimEvents(limit, LEASE_MS);
const relayed = (ids: string[]) => relayRepository.markRelayed(ids, new Date());

describe('fair claim of outbox events', () => {
  beforeAll(ensureMigrated);
  // Each test starts with an empty outbox.
  beforeEach(async () => {
    await prisma.event.updateMany({ where: { relayedAt: null }, data: { relayedAt: new Date(), relayLeaseUntil: null } });
  });

  it("puts another workspace's event in the first batch behind a 2,000-event backlog", { timeout: 120_000 }, async () => {
    const [a, b] = [await createTestWorkspace(), await createTestWorkspace()];
    const aIds = await backlog(a, 2_000);
    const bEvent = await createEvent(b, 'ticket.created');

    const batch = await claim(200);
    expect(batch).toHaveLength(200);
    expect(batch.map((e) => e.id)).toContain(bEvent.id);
    // The rest of the batch is A's oldest events, in commit order.
    const fromA = batch.filter((e) => e.workspaceId === a.workspace.id);
    expect(fromA.map((e) => e.id).sort()).toEqual(aIds.slice(0, 199).sort());
    expect(fromA.map((e) => e.seq)).toEqual([...fromA.map((e) => e.seq)].sort((x, y) => (x < y ? -1 : 1)));
  });

  it('takes turns round-robin, the workspace waiting longest first', async () => {
    const [a, b, c] = [await createTestWorkspace(), await createTestWorkspace(), await createTestWorkspace()];
    await backlog(a, 50);
    await backlog(b, 50);
    await backlog(c, 1);
    const batch = await claim(6);
    const count = (ws: Workspace) => batch.filter((e) => e.workspaceId === ws.workspace.id).length;
    // Turn 1: A, B, C; turn 2: A, B; turn 3: A.
    expect([count(a), count(b), count(c)]).toEqual([3, 2, 1]);
  });

  it('claims every event exactly once, also with two claims at the same time', { timeout: 120_000 }, async () => {
    const [a, b] = [await createTestWorkspace(), await createTestWorkspace()];
    const all = new Set([...(await backlog(a, 700)), ...(await backlog(b, 30))]);
    const seen: string[] = [];
    for (;;) {
      const lanes = await Promise.all([claim(100), claim(100)]);
      const ids = lanes.flat().map((e) => e.id);
      if (!ids.length) break;
      seen.push(...ids);
      await relayed(ids);
    }
    expect(seen).toHaveLength(all.size);
    expect(new Set(seen)).toEqual(all);
  });

  it("leaves leased events to their relay until the lease runs out, then takes them again", async () => {
    const a = await createTestWorkspace();
    const ids = await backlog(a, 10);
    const first = await claim(5);
    // A second relay gets the other five, not the leased ones.
    const second = await claim(100);
    expect(second.map((e) => e.id).sort()).toEqual(ids.filter((id) => !first.some((e) => e.id === id)).sort());
    expect(await claim(100)).toEqual([]);
    // The first relay died: once its lease is over, its events are claimed again (none lost).
    await prisma.event.updateMany({ where: { id: { in: first.map((e) => e.id) } }, data: { relayLeaseUntil: new Date(Date.now() - 1_000) } });
    expect((await claim(100)).map((e) => e.id).sort()).toEqual(first.map((e) => e.id).sort());
  });

  it('returns the claimed events in seq order, wherever their rows sit on disk', async () => {
    const ws = await createTestWorkspace();
    const ids = await backlog(ws, 5);
    // A new version of the oldest rows' tuples, after the others on the page: an UPDATE's
    // RETURNING, which follows the rows' places, would name them last.
    await prisma.event.updateMany({ where: { id: { in: ids.slice(0, 2) } }, data: { relayLeaseUntil: new Date(0) } });
    const batch = await claim(10);
    const seqs = batch.map((e) => e.seq);
    expect(batch.map((e) => e.id).sort()).toEqual([...ids].sort());
    expect(seqs).toEqual([...seqs].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  });
});
