// The process's database. Only repositories (the *.repository.ts files) import `prisma`.
import { config } from '../config.ts';
import { forget, onFirstUse } from '../lazy.ts';
import { onCloseForTests, onResetForTests } from '../reset-for-tests.ts';
import { openDatabase, type Database } from './database.ts';
import { applyMigrations, listMigrations } from './migrations.ts';

// Opened on first use, as the configuration says where.
export const db: Database = onFirstUse(() => openDatabase(config.database));
export const prisma: Database['prisma'] = onFirstUse(() => db.prisma);

export function migrate(): Promise<string[]> {
  return db.withSession((runner) => applyMigrations(runner));
}

/** Readiness: the database answers a query. */
export async function databaseAnswers(): Promise<void> {
  await prisma.$queryRawUnsafe('SELECT 1');
}

let migrationsDone = false;
/** Readiness: every migration file of this build is applied (once true, it stays true). */
export async function migrationsApplied(): Promise<void> {
  if (migrationsDone) return;
  const rows = await prisma.$queryRawUnsafe<{ migration_name: string }[]>(
    'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  const applied = new Set(rows.map((r) => r.migration_name));
  const pending = listMigrations().filter((m) => !applied.has(m.name));
  if (pending.length) throw new Error(`${pending.length} migrations pending`);
  migrationsDone = true;
}

// A test file sharing a worker process with the previous one gets a just-migrated database
// (test/support/setup.ts): this one emptied, so that the readiness check looks again; or this one
// closed, and the next use opens what the configuration names (by then a new copy of the migrated
// template, or a new PostgreSQL database of the same name).
onResetForTests(() => {
  migrationsDone = false;
});
onCloseForTests(async () => {
  forget(prisma);
  await forget(db)?.close();
});
