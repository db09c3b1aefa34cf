// @vitest-environment postgres
// The PostgreSQL pool's connections go to the lanes that wait in turn (src/db/fair-pool.ts): with
// every connection busy and one lane asking for many, another lane's request gets the next
// connection freed but one, not the last. Ordering only, no timing.
import { afterAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { FairPool } from '../../src/db/fair-pool.ts';
import { withDatabaseLane } from '../../src/db/fair-turns.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('FairPool', () => {
  const pool = new FairPool({ connectionString: process.env.DATABASE_URL, max: 2 });
  afterAll(() => pool.end());

  it('gives freed connections to the waiting lanes in turn, and each works', async () => {
    const held: pg.PoolClient[] = await withDatabaseLane('workspace:1', () => Promise.all([pool.connect(), pool.connect()]));
    const order: string[] = [];
    const ask = (lane: string, name: string) =>
      withDatabaseLane(lane, () => pool.connect()).then(async (client) => {
        order.push(name);
        held.push(client);
        return (await client.query<{ n: number }>('SELECT 1 AS n')).rows[0].n;
      });
    // The busy lane asks for three more, then another lane for one; and a statement through
    // `pool.query` (as Prisma's adapter sends each statement) in a third lane.
    const asked = [ask('workspace:1', 'a2'), ask('workspace:1', 'a3'), ask('workspace:1', 'a4'), ask('workspace:2', 'b0')];
    const statement = withDatabaseLane('service', () => pool.query<{ n: number }>('SELECT 2 AS n')).then((r) => (order.push('s0'), r.rows[0].n));
    await tick();
    expect(order).toEqual([]);
    expect(pool.waitingCount).toBe(0); // they wait for a turn, not in pg's own queue

    // One connection given back at a time (the statement gives its own back as it ends).
    while (order.length < 5) {
      const before = order.length;
      held.shift()!.release();
      await expect.poll(() => order.length, { timeout: 10_000, interval: 10 }).toBeGreaterThan(before);
    }
    expect(await Promise.all(asked)).toEqual([1, 1, 1, 1]);
    expect(await statement).toBe(2);
    // First come, first served would be a2, a3, a4, b0, s0.
    expect(order.slice(0, 3)).toEqual(['a2', 'b0', 's0']);
    expect(order.slice(3)).toEqual(['a3', 'a4']);
    for (const client of held) client.release();
  });
});
