// @vitest-environment postgres
// Migrations apply on an empty embedded PGlite and on an empty PostgreSQL database, are recorded
// as Prisma Migrate records them, and do nothing the second time.
import { describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { applyMigrations, listMigrations, type SqlRunner } from '../../src/db/migrations.ts';
import { pgliteRunner, pgRunner } from '../support/sql-runners.ts';

const expectedTables = ['Workspace', 'User', 'Role', 'ApiKey', 'Board', 'Ticket', 'Event', 'Delivery', 'DeliveryAttempt', 'WebhookSubscription', 'IdempotencyRecord'];

async function checkMigrates(runner: SqlRunner) {
  const all = listMigrations();
  expect(all.length).toBeGreaterThan(0);

  const first = await applyMigrations(runner);
  expect(first).toEqual(all.map((m) => m.name));

  const tables = (await runner.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
  )).map((r) => r.table_name);
  for (const t of expectedTables) expect(tables).toContain(t);

  // Recorded as Prisma Migrate records them, so `prisma migrate status` agrees.
  const recorded = await runner.query<{ migration_name: string; checksum: string; finished_at: unknown; applied_steps_count: number }>(
    'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
  );
  expect(recorded.map((r) => r.migration_name)).toEqual(all.map((m) => m.name));
  for (const [i, r] of recorded.entries()) {
    expect(r.checksum).toBe(crypto.createHash('sha256').update(all[i].sql).digest('hex'));
    expect(r.finished_at).not.toBeNull();
    expect(r.applied_steps_count).toBe(1);
  }

  // A second run is a no-op.
  expect(await applyMigrations(runner)).toEqual([]);
  const count = await runner.query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations"');
  expect(count[0].n).toBe(all.length);
}

describe('migrations', () => {
  it('apply on an empty embedded PGlite database, and a second time do nothing', async () => {
    const lite = new PGlite();
    try {
      await checkMigrates(pgliteRunner(lite));
    } finally {
      await lite.close();
    }
  });

  it('roll back a failing migration as a whole', async () => {
    const lite = new PGlite();
    const runner: SqlRunner = pgliteRunner(lite);
    const bad = { name: '99990101000000_bad', dir: 'x', sql: 'CREATE TABLE half_done (id int); SELECT * FROM no_such_table;', checksum: 'x' };
    await expect(applyMigrations(runner, [bad])).rejects.toThrow(/99990101000000_bad failed/);
    const rows = await runner.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'`);
    expect(rows).toHaveLength(0);
    await lite.close();
  });

  it('apply on an empty PostgreSQL database, and a second time do nothing', async () => {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const name = `mig_${crypto.randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await checkMigrates(pgRunner(client));
    } finally {
      await client.end();
      await admin.query(`DROP DATABASE ${name}`);
      await admin.end();
    }
  });
});
