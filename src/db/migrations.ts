// Applies migrations/*/migration.sql in order, each in a transaction, and records them in
// Prisma's own `_prisma_migrations` table (checksum = sha256 hex of the file), so that
// `prisma migrate status/deploy` agree wherever Prisma's native engine exists.
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
      return { name, dir: name, sql, checksum: crypto.createHash('sha256').update(sql).digest('hex') };
    });
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
    const applied: string[] = [];
    for (const m of migrations) {
      const seen = done.get(m.name);
      if (seen !== undefined) {
        if (seen !== m.checksum) {
          console.warn(`migration ${m.name} was modified after it was applied (checksum differs)`);
        }
        continue;
      }
      const id = randomUUID();
      await runner.exec('BEGIN');
      try {
        await runner.exec(m.sql);
        await runner.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), now(), 1)`,
          [id, m.checksum, m.name],
        );
        await runner.exec('COMMIT');
      } catch (err) {
        await runner.exec('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.name);
    }
    return applied;
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
  }
}
