// One switch: DATABASE_URL set means PostgreSQL through Prisma's `pg` driver adapter; unset
// means an embedded PGlite (Postgres compiled to WebAssembly) persisted in the data directory.
import fs from 'node:fs';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Config } from '../config.ts';
import type { SqlRunner } from './migrations.ts';

export interface Database {
  kind: 'postgres' | 'pglite';
  prisma: PrismaClient;
  /** A dedicated session for scripts such as migrations (multi-statement, advisory locks). */
  withSession<T>(fn: (runner: SqlRunner) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function openDatabase(dbConfig: Config['database'], poolSize = 10): Database {
  if (dbConfig.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: dbConfig.url, max: poolSize });
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    return {
      kind: 'postgres',
      prisma,
      async withSession(fn) {
        const client = await pool.connect();
        try {
          return await fn({
            exec: async (sql) => void (await client.query(sql)),
            query: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
          });
        } finally {
          client.release();
        }
      },
      async close() {
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }
  fs.mkdirSync(dbConfig.dir, { recursive: true });
  const lite = new PGlite(dbConfig.dir);
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(lite) });
  return {
    kind: 'pglite',
    prisma,
    withSession: (fn) =>
      fn({
        exec: async (sql) => void (await lite.exec(sql)),
        query: async (sql, params) => (await lite.query(sql, params as unknown[])).rows as never[],
      }),
    async close() {
      await prisma.$disconnect();
      await lite.close();
    },
  };
}
