// Fair turns at the embedded database's one connection (src/db/fair-turns.ts): one statement or
// transaction at a time, round-robin over the callers' lanes, each after a turn of the event loop.
// Ordering only, no timing.
import { describe, expect, it } from 'vitest';
import { currentDatabaseLane, FairTurns, moveToDatabaseLane, SERVICE_LANE, withDatabaseLane, workspaceLane } from '../../src/db/fair-turns.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('FairTurns', () => {
  it('gives the connection to the waiting lanes in turn, not in arrival order', async () => {
    const turns = new FairTurns();
    const order: string[] = [];
    const op = (name: string) => async () => {
      order.push(name);
      await tick();
    };
    // A busy caller asks for five turns first; a quiet one for one, and the service for one, after them.
    const busy = Array.from({ length: 5 }, (_, i) => turns.run('a', op(`a${i}`)));
    const quiet = turns.run('b', op('b0'));
    const service = turns.run(SERVICE_LANE, op('s0'));
    await Promise.all([...busy, quiet, service]);
    expect(order).toEqual(['a0', 'b0', 's0', 'a1', 'a2', 'a3', 'a4']);
    expect(turns.waitingLanes).toBe(0);
  });

  it('holds the connection for a whole operation: no two run at once', async () => {
    const turns = new FairTurns();
    let running = 0;
    let most = 0;
    await Promise.all(
      ['a', 'b', 'a', 'c', 'b', 'a'].map((lane) =>
        turns.run(lane, async () => {
          most = Math.max(most, ++running);
          await tick();
          await tick();
          running -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
  });

  it('lets the event loop turn before every grant, also with one lane alone', async () => {
    const turns = new FairTurns();
    let turned = false;
    setImmediate(() => (turned = true));
    const seen: boolean[] = [];
    for (let i = 0; i < 3; i++) await turns.run('a', async () => void seen.push(turned));
    expect(seen[0]).toBe(true);
  });

  it('passes the connection on after an operation that fails', async () => {
    const turns = new FairTurns();
    const failed = turns.run('a', async () => {
      throw new Error('statement failed');
    });
    await expect(failed).rejects.toThrow('statement failed');
    await expect(turns.run('b', async () => 'next')).resolves.toBe('next');
  });

  it('names the lane of the async context, the service outside any', async () => {
    expect(currentDatabaseLane()).toBe(SERVICE_LANE);
    await withDatabaseLane('credential:x', async () => {
      await tick();
      expect(currentDatabaseLane()).toBe('credential:x');
    });
    expect(currentDatabaseLane()).toBe(SERVICE_LANE);
  });

  it('moves the rest of a context to another lane (a request once its workspace is known); outside one, nothing moves', async () => {
    moveToDatabaseLane(workspaceLane(7));
    expect(currentDatabaseLane()).toBe(SERVICE_LANE);
    const later: string[] = [];
    await withDatabaseLane('credential:x', async () => {
      const before = currentDatabaseLane();
      moveToDatabaseLane(workspaceLane(7));
      await tick();
      later.push(currentDatabaseLane());
      await Promise.all([tick().then(() => later.push(currentDatabaseLane())), tick().then(() => later.push(currentDatabaseLane()))]);
      expect(before).toBe('credential:x');
    });
    expect(later).toEqual(['workspace:7', 'workspace:7', 'workspace:7']);
    expect(currentDatabaseLane()).toBe(SERVICE_LANE);
  });

  it('with room for several (a PostgreSQL pool), grants at once while one is free and none waits, then in turn', async () => {
    const turns = new FairTurns(2);
    const holders: (() => void)[] = [];
    // Two turns free: taken at once, with no turn of the event loop.
    let atOnce = 0;
    const first = turns.take('a').then((giveBack) => (atOnce += 1, holders.push(giveBack)));
    const second = turns.take('a').then((giveBack) => (atOnce += 1, holders.push(giveBack)));
    await Promise.all([first, second]);
    expect(atOnce).toBe(2);
    // Full: the busy lane asks for three more, then another lane for one.
    const order: string[] = [];
    const queued = [...['a2', 'a3', 'a4'].map((name) => ({ name, lane: 'a' })), { name: 'b0', lane: 'b' }].map(({ name, lane }) =>
      turns.take(lane).then((giveBack) => (order.push(name), holders.push(giveBack))),
    );
    await tick();
    expect(order).toEqual([]);
    // Each turn given back goes to the lanes in turn: the quiet one's second, not fourth.
    for (let i = 0; i < 4; i++) {
      holders.shift()!();
      await tick();
      await tick();
    }
    await Promise.all(queued);
    expect(order).toEqual(['a2', 'b0', 'a3', 'a4']);
    // Giving a turn back twice frees it once.
    const twice = holders.shift()!;
    twice();
    twice();
    let granted = 0;
    const more = [turns.take('c'), turns.take('c'), turns.take('c')].map((p) => p.then(() => (granted += 1)));
    await tick();
    await tick();
    expect(granted).toBe(1);
    holders.shift()!();
    await Promise.all(more.slice(0, 2));
    expect(granted).toBe(2);
  });

  it('gives every turn freed at once in one pass, in turn over the lanes (a burst is not drained one per loop turn)', async () => {
    const turns = new FairTurns(3);
    const holders = await Promise.all([turns.take('a'), turns.take('a'), turns.take('a')]);
    const order: string[] = [];
    [
      { name: 'a1', lane: 'a' },
      { name: 'a2', lane: 'a' },
      { name: 'b1', lane: 'b' },
      { name: 'c1', lane: 'c' },
    ].forEach(({ name, lane }) => void turns.take(lane).then(() => order.push(name)));
    await tick();
    expect(order).toEqual([]);
    for (const giveBack of holders) giveBack();
    // One turn of the event loop: the three freed turns go to three lanes, a's second waits.
    await tick();
    expect(order).toEqual(['a1', 'b1', 'c1']);
    expect(turns.waitingLanes).toBe(1);
  });
});
