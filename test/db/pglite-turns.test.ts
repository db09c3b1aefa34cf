// The embedded database lets the event loop turn before each statement or transaction, not inside
// one (src/db/pglite-turns.ts):
// PGlite's own statements settle without returning to it, so without the wrapper a chain of
// statements (a bulk job's chunk) would hold every request until its end. On PGlite always, also
// when the suite runs on PostgreSQL: a copy of the migrated embedded database in a folder of its own
// (a new one, initdb included, where the run made no template: on PostgreSQL). Catalog queries only.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { withDatabaseLane } from '../../src/db/fair-turns.ts';
import { copyMigratedPglite } from '../support/pglite-template.ts';

describe('PGlite statements and the event loop', () => {
  const dir = fs.mkdtempSync(path.join(process.env.TEST_RUN_DIR ?? os.tmpdir(), 'pglite-turns-'));
  let db: Database;

  beforeAll(() => {
    copyMigratedPglite(dir);
    db = openDatabase({ kind: 'pglite', dir: path.join(dir, 'pglite') });
  });

  afterAll(async () => {
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `chain` with a setImmediate callback queued first; whether that callback ran before the chain ended. */
  async function loopTurnedDuring(chain: () => Promise<unknown>): Promise<boolean> {
    let turned = false;
    setImmediate(() => (turned = true));
    await chain();
    const during = turned;
    await new Promise((r) => setImmediate(r));
    return during;
  }

  it('a chain of Prisma transactions lets waiting callbacks run in between', async () => {
    await db.prisma.$queryRaw`SELECT 1`;
    const ran = await loopTurnedDuring(async () => {
      for (let i = 0; i < 20; i++) await db.prisma.$transaction(async (tx) => tx.$queryRaw`SELECT count(*) FROM pg_class`);
    });
    expect(ran).toBe(true);
  });

  it('but not between the statements of one transaction: it holds the connection, and everyone waits for it', async () => {
    let ranInside: boolean | undefined;
    await db.prisma.$transaction(async (tx) => {
      ranInside = await loopTurnedDuring(async () => {
        for (let i = 0; i < 10; i++) await tx.$queryRaw`SELECT count(*) FROM pg_class`;
      });
    });
    expect(ranInside).toBe(false);
  });

  it("one caller's many statements do not crowd out another's: the lanes take turns", async () => {
    const done: string[] = [];
    const statement = (lane: string, name: string) =>
      withDatabaseLane(lane, async () => {
        await db.prisma.$queryRaw`SELECT count(*) FROM pg_class`;
        done.push(name);
      });
    const busy = Array.from({ length: 10 }, (_, i) => statement('credential:a', `a${i}`));
    const quiet = statement('credential:b', 'b');
    await Promise.all([...busy, quiet]);
    // In arrival order the quiet caller's statement would be the eleventh; in turns it is the second.
    expect(done.indexOf('b')).toBe(1);
  });

  it('(the reason) PGlite alone does not: the same chain on its own holds the loop to the end', async () => {
    await db.close();
    const lite = new PGlite(path.join(dir, 'pglite'));
    try {
      await lite.waitReady;
      const ran = await loopTurnedDuring(async () => {
        for (let i = 0; i < 20; i++) await lite.transaction(async (tx) => tx.query('SELECT count(*) FROM pg_class'));
      });
      expect(ran).toBe(false);
    } finally {
      await lite.close();
      db = openDatabase({ kind: 'pglite', dir: path.join(dir, 'pglite') });
    }
  });
});
