// For tests of races between transactions on PostgreSQL: when another backend of the test's
// database waits for a lock (pg_stat_activity says so), the side the test held may go on.
import { prisma } from '../../src/db/db.ts';

/** Resolves once another backend of this database waits for a lock (polls every 10 ms: test only). */
export async function someoneWaitsForALock(): Promise<'waiting'> {
  for (;;) {
    const [row] = await prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS "n" FROM pg_stat_activity WHERE "datname" = current_database() AND "wait_event_type" = 'Lock'`;
    if (row.n > 0) return 'waiting';
    await new Promise((r) => setTimeout(r, 10));
  }
}
