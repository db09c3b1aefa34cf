// One switch: DATABASE_URL set means PostgreSQL through Prisma's `pg` driver adapter; unset
// means an embedded PGlite (Postgres compiled to WebAssembly) persisted in the data directory.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { PrismaPg } from '@prisma/adapter-pg';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { fileURLToPath } from 'node:url';
import type { GetPrismaClientConfig } from '@prisma/client/runtime/client';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Config } from '../config.ts';
import type { SqlRunner } from './migrations.ts';
import { makeOwnerOnly } from './private-data-dir.ts';
import { pgliteWithTurns } from './pglite-turns.ts';
import { currentDatabaseLane, FairTurns } from './fair-turns.ts';
import { FairPool } from './fair-pool.ts';
import { createPgNotifyListener, type NotifyHandler, type NotifyListener, type Unlisten } from './notify-listener.ts';

export interface Database {
  kind: 'postgres' | 'pglite';
  prisma: PrismaClient;
  /** A dedicated session for scripts such as migrations (multi-statement, advisory locks). */
  withSession<T>(fn: (runner: SqlRunner) => Promise<T>): Promise<T>;
  /**
   * One read statement ($1-style parameters) straight to the driver: Prisma's own work around a
   * raw query (its interpreter, argument and result mapping) is about 60% of the CPU of a small
   * one. For the hot reads Prisma's query API cannot express (a page's sizes, paging/page-budget.ts).
   * On PostgreSQL it is prepared like Prisma's statements (DATABASE_PREPARED_STATEMENTS).
   */
  read<Row>(sql: string, params: readonly unknown[]): Promise<Row[]>;
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

/**
 * The generated client imports its query compiler's WASM as a module whose one export is that
 * WASM in base64: the module's source text and its string literal then stay in the heap for the
 * life of the process, 2 x 4.6 MB. Reading the same file as text and compiling it instead leaves
 * both strings to the garbage collector. The module is the one the generated loader names, so a
 * regenerated client with another compiler build stays in step; if the loader ever names none,
 * the generated one is kept.
 */
const compilerWasmFromFile = {
  configOverride(config: GetPrismaClientConfig): GetPrismaClientConfig {
    const wasm = config.compilerWasm;
    const specifier = /import\(\s*["']([^"']+\.wasm-base64\.mjs)["']\s*\)/.exec(String(wasm?.getQueryCompilerWasmModule))?.[1];
    if (!wasm || !specifier) return config;
    return { ...config, compilerWasm: { ...wasm, getQueryCompilerWasmModule: () => compileBase64Module(fileURLToPath(import.meta.resolve(specifier))) } };
  },
};

async function compileBase64Module(file: string): Promise<WebAssembly.Module> {
  const base64 = /"([A-Za-z0-9+/=]{1000,})"/.exec(await fs.promises.readFile(file, 'utf8'))?.[1];
  if (!base64) throw new Error(`no base64 WASM in ${file}`);
  return new WebAssembly.Module(Buffer.from(base64, 'base64'));
}

/**
 * `__internal` is the runtime's constructor option for such overrides; the generated client's types
 * leave it out. `errorFormat: 'minimal'`: with any other format the client captures a stack trace
 * (`new Error()`) at every call, to point its error messages at the caller's line; that was the
 * largest single function of Prisma's in a CPU profile of an import (bench/results/findings-webhooks.md),
 * and our errors are mapped by code (src/errors/), never shown to callers as Prisma words them.
 */
const newPrismaClient = (options: ConstructorParameters<typeof PrismaClient>[0]) =>
  new PrismaClient(Object.assign({ errorFormat: 'minimal' as const }, options, { __internal: compilerWasmFromFile }));

export function openDatabase(dbConfig: Config['database'], poolSize = 10): Database {
  if (dbConfig.kind === 'postgres') {
    // Connections go to the lanes that wait in turn (fair-pool.ts), as PGlite's one does (fair-turns.ts).
    const pool = new FairPool({ connectionString: dbConfig.url, max: poolSize });
    // Off (DATABASE_PREPARED_STATEMENTS=false) behind a pooler in transaction mode that does not
    // track prepared statements (PgBouncer before 1.21, or without max_prepared_statements).
    const statementName = dbConfig.preparedStatements ? createStatementNamer() : undefined;
    const adapter = new PrismaPg(pool, statementName ? { statementNameGenerator: statementName } : undefined);
    // Interactive transactions (the delivery run's claim, recording a failure) may wait for a pooled
    // connection and for a workspace's row lock under a burst: longer than Prisma's 2 s and 5 s.
    const prisma = newPrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 30_000 } });
    let listener: NotifyListener | undefined;
    return {
      kind: 'postgres',
      prisma,
      async withSession(fn) {
        const client = await pool.connect();
        try {
          return await fn({
            exec: async (sql) => void (await client.query(sql)),
            query: async (sql, params) => (await client.query(sql, params as unknown[])).rows as never[],
          });
        } finally {
          client.release();
        }
      },
      read: async (sql, params) => (await pool.query({ name: statementName?.({ sql }), text: sql, values: params as unknown[] })).rows as never[],
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
  // The files of a new database come from PGlite's template as 0666 (those it makes later follow the umask).
  const privateFiles = lite.waitReady.then(() => makeOwnerOnly(dbConfig.dir));
  // PGlite has one connection: a transaction waits for the one before it. The adapter cannot
  // withdraw a transaction that Prisma gave up waiting for (maxWait): it still takes the connection
  // later and keeps it for good, and every query after it hangs. So the wait is as long as a
  // transaction could ever queue here, never shorter.
  // The statements of Prisma's queries and of `read` take fair turns (pglite-turns.ts, fair-turns.ts).
  const turns = new FairTurns();
  const prisma = newPrismaClient({ adapter: new PrismaPGlite(pgliteWithTurns(lite, turns)), transactionOptions: { maxWait: 600_000, timeout: 60_000 } });
  return {
    kind: 'pglite',
    prisma,
    withSession: (fn) =>
      fn({
        exec: async (sql) => void (await lite.exec(sql)),
        query: async (sql, params) => (await lite.query(sql, params as unknown[])).rows as never[],
      }),
    read: async (sql, params) => (await turns.run(currentDatabaseLane(), () => lite.query(sql, params as unknown[]))).rows as never[],
    listen: (channel, handler) => lite.listen(channel, handler),
    async close() {
      await privateFiles.catch(() => undefined);
      await prisma.$disconnect();
      await lite.close();
    },
  };
}
