// `npm run bench:api`: our API against two baselines on this machine, with autocannon, on
// PostgreSQL and on the embedded default (PGlite in a data directory). Each server runs in its own
// child process on a loopback port (its RSS is its own, and autocannon never shares its event
// loop); the load generator runs here. The servers run as production runs the service: bundled by
// scripts/build.ts and run by plain `node`, our app with the node flags of `npm start -- api` (read
// from scripts/start.sh, so the two cannot drift apart). The bare node:http + pg ceiling runs on
// PostgreSQL only; on the embedded database the Prisma-only baseline and our app each get a copy
// of one seeded data directory (PGlite holds its directory alone).
//
//   npm run bench:api [-- --duration 10 --warmup 2 --connections 32 --only me,post --engines postgres,embedded --cpu-prof DIR --app-flags='--max-old-space-size=96']
//
// PostgreSQL: DATABASE_URL when set, else a throwaway cluster started and stopped here. A full
// run (no --only, both engines) writes its table to bench/results/api-latest.md. `--cpu-prof DIR`
// profiles our app and the Prisma-only baseline, into DIR/<engine>/<server>.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ThrowawayPostgres } from '../scripts/throwaway-postgres.ts';
import { benchDatabase } from './bench-database.ts';
import type { BenchFixture } from './servers/listen.ts';
import { bundle, distDir } from '../scripts/build.ts';
import { runBench, writeResults } from './lifecycle.ts';
import { productionNode } from './production.ts';
import { children, cpuMsOf, fmt, load, mark, start, stopChild, uptime, type BenchCase } from './api-load.ts';
import { newSecretKeys } from '../src/webhooks/message/secret-box.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = path.join(here, 'results', 'api-latest.md');

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    only: { type: 'string' },
    engines: { type: 'string', default: 'postgres,embedded' },
    'cpu-prof': { type: 'string' },
    // Other node flags for our app than npm start's, to compare settings (e.g. heap sizes).
    'app-flags': { type: 'string' },
  },
});
const duration = Number(opts.duration);
const warmup = Number(opts.warmup);
const connections = Number(opts.connections);

type Engine = 'postgres' | 'embedded';
const ENGINES: Record<Engine, string> = { postgres: 'PostgreSQL', embedded: 'embedded (PGlite)' };
const engines = opts.engines.split(',').map((s) => s.trim()) as Engine[];
for (const e of engines) if (!(e in ENGINES)) throw new Error(`--engines: unknown engine ${e} (postgres, embedded)`);

type ServerId = 'ceiling' | 'prisma' | 'app';
const SERVERS: Record<ServerId, { label: string; file: string }> = {
  ceiling: { label: 'bare node:http + pg, 1 PK query (ceiling)', file: 'pg-ceiling' },
  prisma: { label: 'Prisma-only (services, no GraphQL/facade)', file: 'prisma-only' },
  app: { label: 'our app (Hono + REST facade + GraphQL)', file: 'app' },
};
/** The servers' bundles; inside the repository, where src/paths.ts finds its root. */
const serversDir = path.join(distDir, 'bench');

interface AppCase extends BenchCase {
  servers: ServerId[];
}
const CASES: AppCase[] = [
  { id: 'me', name: 'GET /me', method: 'GET', path: '/public/v1/me', servers: ['ceiling', 'prisma', 'app'] },
  { id: 'boards', name: 'GET /boards', method: 'GET', path: '/public/v1/boards', servers: ['prisma', 'app'] },
  { id: 'tickets', name: 'GET /tickets', method: 'GET', path: '/public/v1/tickets', servers: ['prisma', 'app'] },
  { id: 'post', name: 'POST /tickets', method: 'POST', path: '/public/v1/tickets', servers: ['prisma', 'app'] },
  { id: 'post-idem', name: 'POST /tickets + Idempotency-Key', method: 'POST', path: '/public/v1/tickets', servers: ['prisma', 'app'], idempotent: true },
];
const only = opts.only?.split(',').map((s) => s.trim());
const cases = only ? CASES.filter((c) => only.includes(c.id)) : CASES;
if (!cases.length) throw new Error(`--only names no case; cases: ${CASES.map((c) => c.id).join(', ')}`);
/** The ceiling is a node:http + pg server: PostgreSQL only. */
const serversOn = (engine: Engine, c: AppCase) => c.servers.filter((id) => engine === 'postgres' || id !== 'ceiling');
const serverIdsOn = (engine: Engine) => (Object.keys(SERVERS) as ServerId[]).filter((s) => cases.some((c) => serversOn(engine, c).includes(s)));

// Every step below is bounded; this bounds the whole run too (an embedded seed takes longer).
const runs = engines.reduce((n, e) => n + 60 / (duration + warmup + 15) + cases.reduce((m, c) => m + serversOn(e, c).length, 0), 0);
const budgetMs = (180 + runs * (duration + warmup + 15)) * 1000;

let cluster: ThrowawayPostgres | undefined;
const tempDirs: string[] = [];

async function cleanup() {
  await Promise.all(children.map(stopChild));
  cluster?.stop();
  cluster = undefined;
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}


interface Memory {
  peakMb: number;
  rssMb: number;
  peakHeapMb: number;
  heapTotalMb: number;
  externalMb: number;
}

/** Peak and current RSS from /proc (VmHWM, VmRSS), and the V8 heap as the server reports it. */
async function memoryOf(child: ChildProcess): Promise<Memory> {
  const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const heap = await new Promise<NodeJS.MemoryUsage & { peakHeapTotal: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a server did not report its memory')), 10_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve((m as { memory: NodeJS.MemoryUsage & { peakHeapTotal: number } }).memory);
    });
    child.send('memory');
  });
  const mb = (bytes: number) => bytes / 2 ** 20;
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024, peakHeapMb: mb(heap.peakHeapTotal), heapTotalMb: mb(heap.heapTotal), externalMb: mb(heap.external) };
}

interface Row {
  engine: Engine;
  case: AppCase;
  server: ServerId;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** The server's own CPU time per answered request (its share of the two cores, whatever else runs). */
  cpuMsPerRequest: number;
}

/** autocannon records latencies in whole milliseconds. */
const ms = (n: number) => (n < 1 ? '<1' : fmt(n));

async function main() {
  const loadBefore = uptime();
  const database = engines.includes('postgres') ? await benchDatabase((m) => console.error(m)) : undefined;
  cluster = database?.cluster;

  const allServerIds = (Object.keys(SERVERS) as ServerId[]).filter((id) => engines.some((e) => serverIdsOn(e).includes(id)));
  await bundle(Object.fromEntries(allServerIds.map((id) => [SERVERS[id].file, path.join(here, 'servers', `${SERVERS[id].file}.ts`)])), serversDir);
  // The app server is the API part (`npm start -- api`).
  const production = productionNode('api');
  const appFlags = opts['app-flags'] !== undefined ? opts['app-flags'].split(/\s+/).filter(Boolean) : production.flags;

  const rows: Row[] = [];
  const memory: { engine: Engine; server: ServerId; m: Memory }[] = [];
  for (const engine of engines) {
    // REDIS_URL is left as the caller set it: unset, the rate limiter counts in process.
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', NODE_ENV: 'production', SEED_DEMO: 'false', WEBHOOK_SECRET_KEYS: newSecretKeys() };
    let seedDir: string | undefined;
    if (engine === 'postgres') env.DATABASE_URL = database!.url;
    else {
      delete env.DATABASE_URL;
      seedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-api-seed-'));
      tempDirs.push(seedDir);
      env.DATA_DIR = seedDir;
    }
    console.error(`${ENGINES[engine]}: seeding one workspace, an unthrottled key with every scope, 500 tickets…`);
    const seeding = start<BenchFixture>(path.join(here, 'seed.ts'), env, [], ['--import', 'tsx'], 240_000);
    const fixture = await seeding.message;
    await stopChild(seeding.child);

    const servers = new Map<ServerId, { child: ChildProcess; url: string }>();
    for (const id of serverIdsOn(engine)) {
      const prof = id !== 'ceiling' && opts['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(opts['cpu-prof'], engine, id)] : [];
      // The Prisma-only baseline is our process minus the facade: same node flags (heap limit), so
      // the comparison shows the facade's cost and not the heap limit's.
      const flags = id === 'ceiling' ? [] : [...appFlags, ...prof];
      const serverEnv = id === 'ceiling' ? env : { ...env, ...production.env };
      if (seedDir) {
        serverEnv.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), `bench-api-${id}-`));
        tempDirs.push(serverEnv.DATA_DIR);
        fs.cpSync(seedDir, serverEnv.DATA_DIR, { recursive: true });
      }
      const { child, message } = start<{ port: number }>(path.join(serversDir, `${SERVERS[id].file}.js`), serverEnv, [JSON.stringify(fixture)], flags, 120_000);
      const { port } = await message;
      servers.set(id, { child, url: `http://127.0.0.1:${port}` });
    }

    for (const c of cases) {
      for (const id of serversOn(engine, c)) {
        const { url, child } = servers.get(id)!;
        console.error(`${ENGINES[engine]} · ${c.name} on ${SERVERS[id].label}: ${warmup} s warm-up, ${duration} s measured`);
        if (warmup > 0) await load(url, c, fixture, warmup, connections);
        const cpuBefore = cpuMsOf(child);
        const r = await load(url, c, fixture, duration, connections);
        const cpuMsPerRequest = (cpuMsOf(child) - cpuBefore) / Math.max(1, r.requests.total);
        rows.push({ engine, case: c, server: id, rps: r.requests.total / r.duration, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, cpuMsPerRequest });
      }
    }
    for (const [id, { child }] of servers) {
      memory.push({ engine, server: id, m: await memoryOf(child) });
      await stopChild(child);
    }
  }
  const loadAfter = uptime();
  await cleanup();

  const lines: string[] = [];
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  lines.push(`# API benchmark (${date})`, '');
  lines.push(
    `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB RAM; Node ${process.version}; ${database ? `PostgreSQL ${database.version} (${database.note})` : 'no PostgreSQL'}${engines.includes('embedded') ? '; the embedded default: PGlite in a data directory, one per server, copied from one seeded' : ''}.`,
    `Servers bundled by scripts/build.ts and run by plain node; our app and the Prisma-only baseline with ${opts['app-flags'] !== undefined ? 'the node flags' : "the node flags of `npm start`"}: \`${appFlags.join(' ') || '(none)'}\`, and the environment of \`npm start\`: \`${Object.entries(production.env).map(([k, v]) => `${k}=${v}`).join(' ') || '(none)'}\`.`,
    `autocannon: ${connections} connections, ${warmup} s warm-up then ${duration} s per case, from the parent process; each server is its own process on loopback. Latencies in whole ms.`,
    `Load before: \`${loadBefore}\``,
    `Load after: \`${loadAfter}\``,
    '',
  );
  lines.push('| Database | Case | Server | req/s | p50 ms | p99 ms | server CPU ms/req | non-2xx | errors |', '|---|---|---|--:|--:|--:|--:|--:|--:|');
  for (const r of rows) {
    lines.push(`| ${ENGINES[r.engine]} | ${r.case.name} | ${SERVERS[r.server].label} | ${fmt(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${fmt(r.cpuMsPerRequest, 3)} | ${r.non2xx} | ${r.errors} |`);
  }
  lines.push('', '| Database | Server | peak RSS (VmHWM) MB | peak V8 heap MB | RSS at end MB | V8 heap at end MB | external at end MB |', '|---|---|--:|--:|--:|--:|--:|');
  for (const { engine, server, m } of memory) {
    lines.push(`| ${ENGINES[engine]} | ${SERVERS[server].label} | ${fmt(m.peakMb)} | ${fmt(m.peakHeapMb)} | ${fmt(m.rssMb)} | ${fmt(m.heapTotalMb)} | ${fmt(m.externalMb)} |`);
  }

  // The targets are PostgreSQL's; the embedded default's shares are shown beside them, for the record.
  const find = (caseId: string, server: ServerId, engine: Engine = 'postgres') => rows.find((r) => r.engine === engine && r.case.id === caseId && r.server === server);
  const targets: string[] = [];
  const me = find('me', 'app');
  const ceiling = find('me', 'ceiling');
  if (me && ceiling) {
    const share = me.rps / ceiling.rps;
    targets.push(`| GET /me ≥ 100% of the bare ceiling | ${fmt(share * 100)}% (${fmt(me.rps)} of ${fmt(ceiling.rps)} req/s) | ${mark(share >= 1)} |`);
    targets.push(`| GET /me p99 ≤ 25 ms | ${ms(me.p99)} ms | ${mark(me.p99 <= 25)} |`);
  }
  for (const caseId of ['post', 'post-idem']) {
    const r = find(caseId, 'app');
    if (r) targets.push(`| ${r.case.name} ≥ 1,000 req/s | ${fmt(r.rps)} req/s | ${mark(r.rps >= 1000)} |`);
  }
  for (const c of cases) {
    const ours = find(c.id, 'app');
    const base = find(c.id, 'prisma');
    if (ours && base) {
      const share = ours.rps / base.rps;
      targets.push(`| ${c.name}: facade + GraphQL cost ≤ 25% (ours ≥ 75% of Prisma-only) | ${fmt(share * 100)}% (cost ${fmt((1 - share) * 100)}%) | ${mark(share >= 0.75)} |`);
    }
  }
  for (const c of cases) {
    const ours = find(c.id, 'app', 'embedded');
    const base = find(c.id, 'prisma', 'embedded');
    if (ours && base) targets.push(`| embedded: ${c.name}, ours against Prisma-only (no target) | ${fmt(ours.rps)} of ${fmt(base.rps)} req/s: ${fmt((ours.rps / base.rps) * 100)}% | — |`);
  }
  const bad = rows.filter((r) => r.non2xx > 0 || r.errors > 0);
  targets.push(`| no non-2xx answers or errors in any case | ${bad.length ? bad.map((r) => `${ENGINES[r.engine]} · ${r.case.name} on ${r.server}: ${r.non2xx} non-2xx, ${r.errors} errors`).join('; ') : 'none'} | ${mark(!bad.length)} |`);
  lines.push('', '| Target | Measured | Result |', '|---|---|---|', ...targets, '');

  const markdown = lines.join('\n');
  console.log(markdown);
  if (!only && engines.length === Object.keys(ENGINES).length) {
    writeResults(RESULTS_FILE, markdown);
  }
}

runBench(main, cleanup, budgetMs);
