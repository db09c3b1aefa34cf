// The service as `npm start` runs it, for benchmarks that drive it through the public API only
// (bench/embedded-burst.ts, bench/destinations.ts): built (scripts/build.ts) and started
// (scripts/start.sh) from a tree on a data directory of its own, PGlite inside its one process
// unless DATABASE_URL names a PostgreSQL database; workspaces and keys made with the admin CLI;
// the API called with a key.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { freePort } from '../scripts/free-port.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Api {
  constructor(
    private base: string,
    private key: string,
  ) {}
  /** `T`: the body's shape as the bench reads it (the API's answer, unchecked). */
  async call<T = unknown>(method: string, p: string, body?: unknown): Promise<{ status: number; json: T; ms: number; retryAfter: number }> {
    const t0 = performance.now();
    const send = () =>
      fetch(this.base + p, {
        method,
        headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // A kept-alive connection the server closed as it was reused (its idle timeout): once more on a new one.
    const res = await send().catch(() => send());
    const text = await res.text();
    return { status: res.status, json: (text ? JSON.parse(text) : null) as T, ms: performance.now() - t0, retryAfter: Number(res.headers.get('retry-after') ?? 1) || 1 };
  }
  async ok<T = unknown>(method: string, p: string, body?: unknown): Promise<T> {
    const r = await this.call<T>(method, p, body);
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  }
  /** A GraphQL operation with the same key (what REST does not offer, such as a pause by hand): its `data`. */
  async graphql<T = unknown>(query: string, variables: Record<string, unknown>): Promise<T> {
    const res = await fetch(this.base.replace(/\/public\/v1$/, '/graphql'), {
      method: 'POST',
      headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: T; errors?: unknown[] };
    if (!res.ok || body.errors?.length) throw new Error(`GraphQL ${query.slice(0, 60)}: ${res.status} ${JSON.stringify(body.errors)}`);
    return body.data!;
  }
}

/**
 * The environment of `npm start` on `dataDir` for a benchmark: free ports for the API and the dev
 * server, loopback receivers allowed and trusted (`caFile`), warnings only; PGlite unless
 * `databaseUrl`. `extra` last (the benchmark's own settings).
 */
export async function serviceEnv(dataDir: string, caFile: string, databaseUrl: string | undefined, extra: Record<string, string>): Promise<{ env: NodeJS.ProcessEnv; port: number }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    NODE_ENV: 'development',
    PORT: String(port),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    NODE_EXTRA_CA_CERTS: caFile,
    LOG_LEVEL: 'warn',
    ...extra,
  };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  return { env, port };
}

/** Builds the tree's bundle as `npm start` needs it. */
export function buildService(tree: string, env: NodeJS.ProcessEnv): void {
  execFileSync('npx', ['tsx', 'scripts/build.ts'], { cwd: tree, env, stdio: 'inherit' });
}

/**
 * Starts `npm start -- <part>` (scripts/start.sh) in its own process group and resolves once it
 * printed its banner. Its stderr goes to ours, prefixed with `tag`.
 */
export async function startServicePart(tree: string, part: string, env: NodeJS.ProcessEnv, tag: string): Promise<ChildProcess> {
  const child = spawn('sh', ['scripts/start.sh', part], { cwd: tree, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => process.stderr.write(`${tag} ${part}: ${d}`));
  const deadline = Date.now() + 180_000;
  while (!out.includes('Database:')) {
    if (child.exitCode !== null) throw new Error(`the service (${part}) exited: ${out}`);
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`no banner in 180 s: ${out}`);
    }
    await sleep(200);
  }
  return child;
}

/** SIGTERM to the child's process group, SIGKILL after 20 s; resolves once it exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const t = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }, 20_000);
  await gone;
  clearTimeout(t);
  await sleep(1_000);
}

/** The admin CLI of `tree` (`npm run cli -- …`) on the service's data: its output. */
export const cliOf =
  (tree: string, env: NodeJS.ProcessEnv) =>
  (...args: string[]): string =>
    execFileSync('npx', ['tsx', 'src/cli.ts', ...args], { cwd: tree, env, encoding: 'utf8' });

/** A new workspace `name` (its domain from `tag`) with an administrator's API key of `scopes`: the API with that key. */
export function createWorkspaceWithKey(cli: ReturnType<typeof cliOf>, base: string, name: string, tag: string, scopes: string[]): { api: Api; domain: string } {
  const domain = `https://${name}-${tag}.bench.test`;
  cli('workspaces', 'create', '--name', name, '--domain', domain, '--admin-email', `admin@${name}.bench.test`);
  return { api: newKey(cli, base, domain, scopes), domain };
}

/** One more API key of the workspace at `domain`. */
export function newKey(cli: ReturnType<typeof cliOf>, base: string, domain: string, scopes: string[]): Api {
  const keyOut = cli('keys', 'create', '--workspace', domain, '--name', 'bench', '--role', 'Administrator', '--scopes', scopes.join(','));
  return new Api(base, keyOut.trim().split('\n').at(-1)!.trim());
}

/** A new, empty database on the server of `baseUrl`; its URL. */
export async function freshDatabase(baseUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface Board {
  id: string;
  fields?: { id: string; required: boolean; options?: string[] }[];
}

/** The workspace's first board, and every required field of it with its first option (or a word): what a new ticket needs. */
export async function firstBoard(api: Api): Promise<{ board: Board; fields: { fieldId: string; value: string }[] }> {
  // A page (`data`), or the bare list of a version before paging.
  const boards = await api.ok<{ data?: Board[] } | Board[]>('GET', '/boards');
  const board = (Array.isArray(boards) ? boards : (boards.data ?? []))[0];
  const fields = (board.fields ?? []).filter((f) => f.required).map((f) => ({ fieldId: f.id, value: f.options?.[0] ?? 'bench' }));
  return { board, fields };
}

/** `count` new tickets on the board: their ids. */
export async function createTickets(api: Api, board: { board: Board; fields: { fieldId: string; value: string }[] }, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await api.ok<{ id: string }>('POST', '/tickets', { boardId: board.board.id, subject: `Bench ticket ${i}`, requesterEmail: 'someone@example.com', fields: board.fields })).id);
  return ids;
}

export interface SteadyPhase {
  /** The API's answer time of each PATCH that succeeded. */
  apiMs: number[];
  failed: number;
  sent: number;
  /** Wall-clock ms the phase began and ended: its events occurred within. */
  from: number;
  to: number;
}

/** One PATCH of `ticketId` every `everyMs` for `seconds` (each a ticket.updated event), `subject(n)` its new subject. */
export async function steadyPatches(api: Api, ticketId: string, everyMs: number, seconds: number, subject: (n: number) => string): Promise<SteadyPhase> {
  const apiMs: number[] = [];
  let failed = 0;
  const writes: Promise<void>[] = [];
  const from = Date.now();
  const t0 = performance.now();
  for (let n = 0; n * everyMs < seconds * 1000; n++) {
    const wait = t0 + n * everyMs - performance.now();
    if (wait > 0) await sleep(wait);
    writes.push(
      api.call('PATCH', `/tickets/${ticketId}`, { subject: subject(n) }).then(
        (r) => {
          if (r.status === 200) apiMs.push(r.ms);
          else failed += 1;
        },
        () => void (failed += 1),
      ),
    );
  }
  await Promise.all(writes);
  return { apiMs, failed, from, to: Date.now(), sent: writes.length };
}
