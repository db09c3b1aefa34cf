// Applies migrations/*/migration.sql in order, each in a transaction, and records them in
// Prisma's own `_prisma_migrations` table (checksum = sha256 hex of the file), so that
// `prisma migrate status/deploy` agree wherever Prisma's native engine exists.
//
// Squashed migrations: a migration folder may hold `replaces/<name>/migration.sql`, the old
// migrations it stands for, byte for byte (their checksums are what older databases recorded).
// For each such migration the migrator looks at which of the replaced names a database applied:
// - none: it runs the squashed SQL (a fresh database, or one made before those migrations);
// - all: it records the squashed one as applied without running it;
// - some (a database made between them): it runs the remaining old ones, each at its own place in
//   name order among the others, and then records the squashed one.
// Only this migrator knows `replaces/`: Prisma's native `migrate deploy` would run the squashed SQL
// on a database that applied the old ones. docs/contributing/layout.md says when to squash.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { randomUUID } from 'node:crypto';
import { fromRoot } from '../paths.ts';

export const migrationsDir = fromRoot('migrations');

interface Migration {
  name: string;
  dir: string;
  sql: string;
  checksum: string;
  /** The old migrations a squashed one stands for (`replaces/`), in name order; none for most. */
  replaces?: Migration[];
}

/** What the migrator needs from a connection: run a script, and query with parameters. */
export interface SqlRunner {
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export function listMigrations(dir = migrationsDir): Migration[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      const replaced = path.join(dir, name, 'replaces');
      const replaces = fs.existsSync(replaced)
        ? listMigrations(replaced).map((r) => ({ ...r, dir: path.join(name, 'replaces', r.dir) }))
        : [];
      return { name, dir: name, sql, checksum: sha256(sql), ...(replaces.length ? { replaces } : {}) };
    });
}

function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * What a database that applied `done` runs, in order: the pending migrations, a squashed one
 * swapped for its remaining old ones when it applied some of those; and the squashed ones it
 * records without running (all their old ones applied, or about to be).
 */
export function migrationPlan(migrations: Migration[], done: ReadonlySet<string>): { run: Migration[]; record: Migration[] } {
  const run: Migration[] = [];
  const record: Migration[] = [];
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    const old = m.replaces ?? [];
    const applied = old.filter((r) => done.has(r.name)).length;
    if (applied === 0) {
      run.push(m);
    } else {
      run.push(...old.filter((r) => !done.has(r.name)));
      record.push(m);
    }
  }
  run.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { run, record };
}

const createTable = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

// Any constant works; it keeps concurrent starters (API, worker, test files) from racing.
const LOCK_KEY = 727_001;

/** Applies pending migrations; returns the names applied (empty when up to date). */
export async function applyMigrations(runner: SqlRunner, migrations = listMigrations()): Promise<string[]> {
  await runner.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
  try {
    await runner.exec(createTable);
    const rows = await runner.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const done = new Map(rows.filter((r) => r.finished_at).map((r) => [r.migration_name, r.checksum]));
    for (const m of migrations.flatMap((x) => [x, ...(x.replaces ?? [])])) {
      const seen = done.get(m.name);
      if (seen !== undefined && seen !== m.checksum) {
        console.warn(`migration ${m.name} was modified after it was applied (checksum differs)`);
      }
    }
    const plan = migrationPlan(migrations, new Set(done.keys()));
    const record = `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
                    VALUES ($1, $2, $3, now(), now(), 1)`;
    const applied: string[] = [];
    for (const m of plan.run) {
      await runner.exec('BEGIN');
      try {
        await runner.exec(m.sql);
        await runner.query(record, [randomUUID(), m.checksum, m.name]);
        await runner.exec('COMMIT');
      } catch (err) {
        await runner.exec('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.name);
    }
    // Every old migration of these is applied by now: the squashed one is, in effect.
    for (const m of plan.record) {
      await runner.query(record, [randomUUID(), m.checksum, m.name]);
      applied.push(m.name);
    }
    return applied;
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
  }
}
