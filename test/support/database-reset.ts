// Empties a migrated database back to its just-migrated state, for the next test file of a shared
// worker process (setup.ts): every row of every table goes, except the migrations' own record
// (`_prisma_migrations`; no migration inserts rows of its own), and every sequence starts again
// where it started. On the open database, in a few milliseconds: closing the embedded PGlite,
// copying the migrated template again and reopening it took about 1.5 s per file, and dropping a
// PostgreSQL database ended every connection still open on it (`DROP … WITH (FORCE)`).
//
// Rows only: what a test changed in the schema itself would stay. So the schema is compared with
// the migrated one first (`schemaFingerprint`, made once per run by global-setup.ts from a freshly
// migrated database); when they differ, the caller makes the database again as before.
import type { SqlRunner } from '../../src/db/migrations.ts';

const userSchemas = `NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`;

/**
 * What the schema consists of (schemas, tables with their columns, indexes, sequences, views,
 * functions with their bodies, triggers, constraints), as one hash: equal for two databases with
 * the same migrations applied, whatever their rows.
 */
export async function schemaFingerprint(run: Pick<SqlRunner, 'query'>): Promise<string> {
  const [row] = await run.query<{ fingerprint: string | null }>(`
    SELECT md5(string_agg(item, E'\\n' ORDER BY item)) AS fingerprint FROM (
      SELECT 'schema ' || n.nspname AS item FROM pg_namespace n WHERE n.nspname ${userSchemas}
      UNION ALL
      SELECT 'relation ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || coalesce((
        SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text, ', ' ORDER BY a.attnum)
          FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '')
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname ${userSchemas}
      UNION ALL
      SELECT 'function ' || n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' || md5(p.prosrc)
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname ${userSchemas}
      UNION ALL
      SELECT 'trigger ' || t.tgrelid::regclass::text || ' ' || t.tgname || ' ' || t.tgenabled::text FROM pg_trigger t WHERE NOT t.tgisinternal
      UNION ALL
      SELECT 'constraint ' || c.conrelid::regclass::text || ' ' || c.conname || ' ' || md5(pg_get_constraintdef(c.oid))
        FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname ${userSchemas}
    ) items`);
  return row?.fingerprint ?? '';
}

/**
 * Deletes every row (children before the rows they reference) and restarts every sequence, in one
 * transaction, then vacuums the tables. `migrated`: the fingerprint of a just-migrated schema. Returns 'unmigrated' for a
 * database no migration has touched yet (a PostgreSQL file that never used it: the test kit
 * migrates it); throws when the schema is neither.
 */
export async function emptyMigratedDatabase(run: SqlRunner, migrated: string): Promise<'emptied' | 'unmigrated'> {
  const [{ migrations }] = await run.query<{ migrations: string | null }>(`SELECT to_regclass('public."_prisma_migrations"')::text AS migrations`);
  const tables = await run.query<{ name: string }>(
    `SELECT c.oid::regclass::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname ${userSchemas} AND c.relkind IN ('r', 'p') AND c.relname <> '_prisma_migrations'`,
  );
  if (!migrations) {
    if (tables.length) throw new Error(`the database has tables (${tables.map((t) => t.name).join(', ')}) but no migrations`);
    return 'unmigrated';
  }
  const found = await schemaFingerprint(run);
  if (found !== migrated) throw new Error(`the schema is not the migrated one (fingerprint ${found}, migrated ${migrated}): a file changed it`);
  const references = await run.query<{ child: string; parent: string }>(
    `SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent FROM pg_constraint c WHERE c.contype = 'f'`,
  );
  // A table's rows go after those of every table that references it (RESTRICT is checked at once).
  const order: string[] = [];
  let left = tables.map((t) => t.name);
  while (left.length) {
    const free = left.filter((t) => !references.some((r) => r.parent === t && r.child !== t && left.includes(r.child)));
    if (!free.length) throw new Error(`foreign keys in a cycle among ${left.join(', ')}`);
    order.push(...free);
    left = left.filter((t) => !free.includes(t));
  }
  // Without the foreign keys' per-row triggers where the role may switch them off (a superuser:
  // PGlite, and the throwaway PostgreSQL of CI): deleting a workspace's rows otherwise checks every
  // referencing table once per row (about 0.4 s for 2,000 rows on PGlite). The order above keeps
  // the deletes valid with them on.
  const [{ superuser }] = await run.query<{ superuser: boolean }>('SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user');
  // One simple-protocol script: one transaction (a failure leaves nothing half done or open).
  await run.exec(
    [
      ...(superuser ? ['SET LOCAL session_replication_role = replica'] : []),
      ...order.map((t) => `DELETE FROM ${t}`),
      `SELECT setval(format('%I.%I', schemaname, sequencename)::regclass, start_value, false) FROM pg_sequences WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
    ].join(';\n'),
  );
  // The emptied tables go back to no pages at all, as migrated ones (VACUUM truncates trailing
  // empty pages): new rows are laid out from the first page in the order they are written again,
  // and the planner sees empty tables, so what a test reads in no particular order (an UPDATE's
  // RETURNING) comes back as it did on a new database. About 20 ms on PGlite.
  if (order.length) await run.exec(`VACUUM ${order.join(', ')}`);
  return 'emptied';
}
