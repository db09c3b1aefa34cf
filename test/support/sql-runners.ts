// The migrator's SqlRunner over a PGlite instance or a pg client, for the tests that migrate a
// database of their own (test/db/*).
import type pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { SqlRunner } from '../../src/db/migrations.ts';

export function pgliteRunner(lite: PGlite): SqlRunner {
  return {
    exec: async (sql) => void (await lite.exec(sql)),
    query: async (sql, params) => (await lite.query(sql, params as unknown[])).rows as never[],
  };
}

export function pgRunner(client: pg.Client): SqlRunner {
  return {
    exec: async (sql) => void (await client.query(sql)),
    query: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
  };
}
