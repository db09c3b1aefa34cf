// The running service's administration channel on the embedded database. The service holds
// DATA_DIR/pglite alone (src/admin/data-dir-lock.ts), so `npm run cli` and `npm run migrate` ask
// it instead: HTTP over the Unix socket DATA_DIR/admin.sock. Authorisation is the socket file's
// permission: owner-only (0600), so only the user the service runs as (who could read the
// database files anyway) can connect. A command run here also updates the service's own caches
// (a revoked key stops at once).
import fs from 'node:fs';
import http from 'node:http';
import { listMigrations } from '../db/migrations.ts';
import { db } from '../db/db.ts';
import { logger } from '../logger.ts';
import { runCommand, type Outcome } from './commands.ts';
import { adminSocket } from './admin-client.ts';

const MAX_BODY = 64 * 1024;

/** `npm run migrate` beside the service: says what is pending; the service applies migrations only at start-up. */
async function migrationStatus(): Promise<Outcome> {
  const rows = await db.withSession((r) =>
    r.query<{ migration_name: string }>('SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL'),
  );
  const done = new Set(rows.map((r) => r.migration_name));
  const pending = listMigrations().filter((m) => !done.has(m.name)).map((m) => m.name);
  if (!pending.length) return { ok: true, output: `database is up to date (the running service, pid ${process.pid}, applied the migrations at start-up)` };
  return { ok: false, error: `pending: ${pending.join(', ')}. The running service (pid ${process.pid}) holds the embedded database; restart it (\`npm start\` applies them at start-up).` };
}

async function readArgv(req: http.IncomingMessage): Promise<string[] | undefined> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > MAX_BODY) return undefined;
  }
  try {
    const { argv } = JSON.parse(body) as { argv?: unknown };
    return Array.isArray(argv) && argv.every((a) => typeof a === 'string') ? argv : undefined;
  } catch {
    return undefined;
  }
}

async function answer(req: http.IncomingMessage): Promise<[number, Outcome]> {
  if (req.method === 'POST' && req.url === '/migrate') return [200, await migrationStatus()];
  if (req.method === 'POST' && req.url === '/cli') {
    const argv = await readArgv(req);
    return argv ? [200, await runCommand(argv)] : [400, { ok: false, error: 'expected {"argv": [string, …]}' }];
  }
  return [404, { ok: false, error: 'POST /cli or /migrate' }];
}

/** Listens on DATA_DIR/admin.sock; returns the function that closes it (and removes the socket). */
export async function openAdminChannel(dataDir: string): Promise<() => Promise<void>> {
  const file = adminSocket(dataDir);
  // A socket left by a killed service; this process holds the data directory, so nobody else listens.
  fs.rmSync(file, { force: true });
  const server = http.createServer((req, res) => {
    // Detached: node's request handler returns nothing to wait on; the chain answers either way.
    void answer(req)
      .catch((err): [number, Outcome] => {
        logger.error({ err }, 'admin command failed');
        return [500, { ok: false, error: 'the command failed; see the service log' }];
      })
      .then(([status, outcome]) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(outcome)));
  });
  // Owner-only from the moment the socket exists (listen binds synchronously), not after a chmod.
  const umask = process.umask(0o177);
  try {
    server.listen(file);
  } finally {
    process.umask(umask);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (err) {
    // The CLI then says that the service holds the database but does not answer.
    logger.warn({ err, file }, 'admin channel not opened: npm run cli and npm run migrate will refuse while the service runs');
    return async () => undefined;
  }
  return () => new Promise((resolve) => server.close(() => resolve()));
}
