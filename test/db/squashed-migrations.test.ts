// @vitest-environment postgres
// A squashed migration (a folder with `replaces/`, src/db/migrations.ts) makes the schema its old
// migrations made, on a fresh database and on one that applied any prefix of the old list: on
// PGlite and on PostgreSQL. Each case migrates its own schema (search_path) of one database, so
// that the cases do not each pay for a new database.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { applyMigrations, listMigrations, migrationPlan, type SqlRunner } from '../../src/db/migrations.ts';
import { pgliteRunner, pgRunner } from '../support/sql-runners.ts';

const current = listMigrations();
const squashed = current.filter((m) => m.replaces?.length);
/** The list as it was before the squash: the old migrations in place of each squashed one. */
const old = current.flatMap((m) => m.replaces ?? [m]).sort((a, b) => (a.name < b.name ? -1 : 1));
const oldNames = squashed.flatMap((m) => m.replaces!.map((r) => r.name));
const firstOld = old.findIndex((m) => oldNames.includes(m.name));
const lastOld = old.findLastIndex((m) => oldNames.includes(m.name));

/**
 * The schema `schema` holds, item by item: columns (type, nullability, default), indexes,
 * constraints, functions with their bodies, triggers, types and sequences. Column order is left
 * out (see columnOrder): a squash cannot keep it where a later migration added a column between.
 */
async function describeSchema(run: SqlRunner, schema: string): Promise<string[]> {
  const rows = await run.query<{ item: string }>(
    `SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '-') AS item
       FROM information_schema.columns WHERE table_schema = $1
     UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = $1
     UNION ALL SELECT 'constraint ' || c.conrelid::regclass::text || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid)
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1
     UNION ALL SELECT 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' || md5(p.prosrc)
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1
     UNION ALL SELECT 'trigger ' || t.tgrelid::regclass::text || ' ' || t.tgname || ' ' || pg_get_triggerdef(t.oid)
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND NOT t.tgisinternal
     UNION ALL SELECT 'type ' || t.typname || ' ' || coalesce((SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid), '')
       FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = $1 AND t.typtype = 'e'
     UNION ALL SELECT 'relation ' || c.relname || ' ' || c.relkind::text
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1`,
    [schema],
  );
  return rows.map((r) => r.item.replaceAll(`${schema}.`, '')).sort();
}

/** Each table's columns in their order. */
async function columnOrder(run: SqlRunner, schema: string): Promise<Record<string, string[]>> {
  const rows = await run.query<{ table_name: string; columns: string[] }>(
    `SELECT table_name, array_agg(column_name::text ORDER BY ordinal_position) AS columns
       FROM information_schema.columns WHERE table_schema = $1 GROUP BY table_name`,
    [schema],
  );
  return Object.fromEntries(rows.map((r) => [r.table_name, r.columns]));
}

/** What `schema` has that `want` has not, and the other way round (readable when they differ). */
function difference(schema: string[], want: string[]) {
  return { extra: schema.filter((i) => !want.includes(i)), missing: want.filter((i) => !schema.includes(i)) };
}

async function recorded(run: SqlRunner): Promise<string[]> {
  const rows = await run.query<{ migration_name: string }>('SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL');
  return rows.map((r) => r.migration_name).sort();
}

/** One delivery of event seq 42 with two scheduled attempts and a manual one (foreign keys off). */
async function seedDelivery(run: SqlRunner) {
  await run.exec(`SET session_replication_role = replica;
    INSERT INTO "Workspace" ("id", "name", "domain") VALUES (1, 'w', 'w.example');
    INSERT INTO "WebhookSubscription" ("id", "workspaceId", "createdById", "url", "secret", "updatedAt") VALUES ('s1', 1, 1, 'https://r.example', 'x', now());
    INSERT INTO "Event" ("id", "seq", "workspaceId", "type", "actorId", "payload") VALUES ('e1', 42, 1, 'ticket.created', 1, '{}');
    INSERT INTO "Delivery" ("id", "eventId", "subscriptionId", "workflowId", "updatedAt") VALUES ('d1', 'e1', 's1', 'wf1', now());
    INSERT INTO "DeliveryAttempt" ("id", "deliveryId", "subscriptionId", "eventId", "eventType", "attempt", "trigger", "status", "payload", "workflowId")
      SELECT 'a' || n, 'd1', 's1', 'e1', 'ticket.created', n, CASE WHEN n = 3 THEN 'manual' ELSE 'scheduled' END::"AttemptTrigger", 'failed', '', 'wf1'
        FROM generate_series(1, 3) n;
    SET session_replication_role = origin;`);
}

let schemas = 0;
/** Runs `body` with the runner's unqualified names in a new schema of its own. */
async function inSchema<T>(run: SqlRunner, body: (schema: string) => Promise<T>): Promise<T> {
  const schema = `squash_${++schemas}`;
  await run.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
  try {
    return await body(schema);
  } finally {
    await run.exec('SET search_path TO public');
  }
}

async function checkSquash(run: SqlRunner) {
  const before = await inSchema(run, async (s) => {
    expect(await applyMigrations(run, old)).toEqual(old.map((m) => m.name));
    return { schema: await describeSchema(run, s), order: await columnOrder(run, s) };
  });
  // The old functions and slot table were dropped again: nothing of them is left to compare.
  expect(before.schema.some((i) => i.includes('DeliverySlot') || i.includes('delivery_slot'))).toBe(false);

  // (a) A fresh database.
  await inSchema(run, async (s) => {
    expect(await applyMigrations(run)).toEqual(current.map((m) => m.name));
    expect(difference(await describeSchema(run, s), before.schema)).toEqual({ extra: [], missing: [] });
    expect(await describeSchema(run, s)).toEqual(before.schema);
    // The order of the columns is the old one, except for a column that a migration between the
    // squashed ones added to a table they changed: it comes after the squash's columns now.
    const order = await columnOrder(run, s);
    const moved = Object.keys(before.order).filter((t) => order[t].join() !== before.order[t].join());
    expect(moved).toEqual(['WebhookSubscription']);
    const withoutFields = (cols: string[]) => cols.filter((c) => c !== 'fields');
    expect(withoutFields(order.WebhookSubscription)).toEqual(withoutFields(before.order.WebhookSubscription));
    expect(await recorded(run)).toEqual(current.map((m) => m.name).sort());
  });

  // (b) A database made at any earlier commit: every prefix of the old list from just before the
  // first squashed migration to just after the last, and the whole old list.
  const ends = [...Array.from({ length: lastOld - firstOld + 3 }, (_, i) => firstOld + i), old.length];
  for (const end of new Set(ends)) {
    await inSchema(run, async (s) => {
      const prefix = old.slice(0, end);
      await applyMigrations(run, prefix);
      // A delivery made before delivery_runs takes its event's order and its scheduled attempts.
      const runsApplied = prefix.some((m) => m.name.endsWith('_delivery_runs'));
      if (!runsApplied) await seedDelivery(run);
      const plan = migrationPlan(current, new Set(prefix.map((m) => m.name)));
      const applied = await applyMigrations(run);
      expect(applied, `after ${prefix.at(-1)?.name}`).toEqual([...plan.run, ...plan.record].map((m) => m.name));
      const schema = await describeSchema(run, s);
      expect(difference(schema, before.schema), `after ${prefix.at(-1)?.name}`).toEqual({ extra: [], missing: [] });
      expect(schema).toEqual(before.schema);
      const touched = prefix.some((m) => oldNames.includes(m.name));
      const expected = [...current.map((m) => m.name), ...(touched ? oldNames : [])];
      expect(await recorded(run), `after ${prefix.at(-1)?.name}`).toEqual(expected.sort());
      // The old steps ran where the plan says (a partial database runs the rest of them).
      if (touched && end <= lastOld) expect(plan.run.some((m) => oldNames.includes(m.name))).toBe(true);
      if (!runsApplied) {
        const rows = await run.query<{ seq: string; scheduledAttempts: number }>(`SELECT "seq"::text, "scheduledAttempts" FROM "Delivery" WHERE "id" = 'd1'`);
        expect(rows, `after ${prefix.at(-1)?.name}`).toEqual([{ seq: '42', scheduledAttempts: 2 }]);
      }
      expect(await applyMigrations(run)).toEqual([]);
    });
  }
}

describe('squashed migrations', () => {
  it('stand for old migrations that the list no longer holds', () => {
    expect(squashed.length).toBeGreaterThan(0);
    for (const m of oldNames) expect(current.map((c) => c.name)).not.toContain(m);
    expect(firstOld).toBeGreaterThanOrEqual(0);
  });

  it('make the old schema on a fresh and on a part-migrated embedded PGlite', async () => {
    const lite = new PGlite();
    try {
      await checkSquash(pgliteRunner(lite));
    } finally {
      await lite.close();
    }
  });

  it('make the old schema on a fresh and on a part-migrated PostgreSQL database', async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      await checkSquash(pgRunner(client));
    } finally {
      await client.query(`DO $$ DECLARE s text; BEGIN FOR s IN SELECT nspname FROM pg_namespace WHERE nspname LIKE 'squash\\_%' LOOP EXECUTE format('DROP SCHEMA %I CASCADE', s); END LOOP; END $$`);
      await client.end();
    }
  });
});
