// `npm run bench:guard [-- --base REV]`: this checkout against its base, measured in one
// invocation, interleaved (A, B, A, B…, the order drawn anew each round), so that whatever else
// the machine does weighs on both alike. Each version runs from its own tree (the base in a
// temporary git worktree, node_modules shared) in processes of its own, on data its own code wrote:
//   - the API (bench/servers/app.ts, bundled by each tree's own build, run as `npm start -- api`
//     runs node) on PostgreSQL and on the embedded default (PGlite in a data directory):
//     GET /me, GET /tickets, POST /tickets with and without Idempotency-Key; req/s and the server's
//     CPU per request;
//   - webhooks on PostgreSQL (bench/guard-webhook-side.ts: the tree's dev server, worker and relay):
//     deliveries/s at one and two subscriptions per event with the machine's CPU per delivery, and
//     event-to-first-attempt p50 / p99 of a quiet workspace on an otherwise idle service.
// Each figure is reported as current ÷ base, the median of the rounds' ratios with their range; a
// figure more than 10% worse in the median and worse in every round is flagged. Each run appends
// one line per figure to bench/results/guard-history.md (`bench/guard-plot.ts` draws it) and
// writes its table to bench/results/guard-latest.md.
//
//   npm run bench:guard [-- --base main~3 --only api,embedded,webhooks --rounds 4 --no-history]
//
// Default base: where this branch left main (`git merge-base HEAD main`); on main itself, the
// commit before HEAD. PostgreSQL: DATABASE_URL's server, else a throwaway cluster.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchDatabase } from './bench-database.ts';
import type { ThrowawayPostgres } from '../scripts/throwaway-postgres.ts';
import type { BenchFixture } from './servers/listen.ts';
import { bundle, distDir } from '../scripts/build.ts';
import { runBench, writeResults } from './lifecycle.ts';
import { addBaselineWorktree, bundleAppIn, currentCommit, type BaselineWorktree } from './baseline-worktree.ts';
import { productionNode } from './production.ts';
import { children, cpuMsOf, load, start, stopChild, uptime, type BenchCase } from './api-load.ts';
import { median, shuffle } from './webhook-measure.ts';
import { newSecretKeys } from '../src/webhooks/message/secret-box.ts';
import type { GuardLatency, GuardThroughput, GuardWebhookCommand } from './guard-webhook-side.ts';
import { appendHistory, verdictOf, type Figure } from './guard-figures.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
export const HISTORY_FILE = path.join(here, 'results', 'guard-history.md');
/** Tickets seeded per version (a page is 50). */
const GUARD_TICKETS = 200;

const { values: opts } = parseArgs({
  options: {
    base: { type: 'string' },
    only: { type: 'string', default: 'api,embedded,webhooks' },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '16' },
    'webhook-rounds': { type: 'string', default: '3' },
    events: { type: 'string', default: '600' },
    'idle-seconds': { type: 'string', default: '6' },
    'idle-every-ms': { type: 'string', default: '100' },
    'no-history': { type: 'boolean', default: false },
  },
});
const parts = new Set(opts.only.split(',').map((s) => s.trim()));
for (const p of parts) if (!['api', 'embedded', 'webhooks'].includes(p)) throw new Error(`--only: unknown part ${p} (api, embedded, webhooks)`);
const rounds = Number(opts.rounds);
const seconds = Number(opts.seconds);
const warmup = Number(opts.warmup);
const connections = Number(opts.connections);
const webhookRounds = Number(opts['webhook-rounds']);

const CASES: BenchCase[] = [
  { id: 'me', name: 'GET /me', method: 'GET', path: '/public/v1/me' },
  { id: 'tickets', name: 'GET /tickets', method: 'GET', path: '/public/v1/tickets' },
  { id: 'post', name: 'POST /tickets', method: 'POST', path: '/public/v1/tickets' },
  { id: 'post-idem', name: 'POST /tickets + Idempotency-Key', method: 'POST', path: '/public/v1/tickets', idempotent: true },
];

type Side = 'base' | 'current';
const SIDES: readonly Side[] = ['base', 'current'];
const log = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const started = Date.now();

let cluster: ThrowawayPostgres | undefined;
let worktree: BaselineWorktree | undefined;
const tempDirs: string[] = [];
const webhookSides: ChildProcess[] = [];

async function cleanup() {
  await Promise.all([...children, ...webhookSides].map(stopChild));
  cluster?.stop();
  cluster = undefined;
  worktree?.remove();
  worktree = undefined;
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** Where this branch left main; on main itself (or when main is unknown), the commit before HEAD. */
function defaultBase(): string {
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  try {
    const base = execFileSync('git', ['merge-base', 'HEAD', 'main'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (base !== head) return base;
  } catch {
    // No branch called main in this clone.
  }
  return 'HEAD~1';
}

/** A fresh database on the PostgreSQL server at `serverUrl`, by name. */
async function createDatabase(serverUrl: string, prefix: string): Promise<string> {
  const name = `${prefix}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const figures: Figure[] = [];
function figure(name: string, unit: string, higherIsBetter: boolean): Figure {
  const f: Figure = { name, unit, higherIsBetter, base: [], current: [] };
  figures.push(f);
  return f;
}

/** The API cases on one engine: both versions seeded by their own code, served at once, loaded in alternation. */
async function apiPart(engine: 'postgres' | 'embedded', trees: Record<Side, string>, bundles: Record<Side, string>, serverUrl: string) {
  const production = productionNode('api');
  const servers = {} as Record<Side, { child: ChildProcess; url: string; fixture: BenchFixture }>;
  for (const side of SIDES) {
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', NODE_ENV: 'production', SEED_DEMO: 'false', WEBHOOK_SECRET_KEYS: newSecretKeys() };
    if (engine === 'postgres') env.DATABASE_URL = await createDatabase(serverUrl, `guard_api_${side}`);
    else {
      delete env.DATABASE_URL;
      env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), `guard-${side}-`));
      tempDirs.push(env.DATA_DIR);
    }
    log(`${engine}: seeding ${side} with its own code…`);
    const seeding = start<BenchFixture>(path.join(here, 'seed.ts'), env, [trees[side], String(GUARD_TICKETS)], ['--import', 'tsx'], 240_000);
    const fixture = await seeding.message;
    await stopChild(seeding.child);
    const { child, message } = start<{ port: number }>(bundles[side], { ...env, ...production.env }, [JSON.stringify(fixture)], production.flags);
    servers[side] = { child, url: `http://127.0.0.1:${(await message).port}`, fixture };
  }
  for (const c of CASES) {
    const rps = figure(`${engine} · ${c.name} · req/s`, 'req/s', true);
    const cpu = figure(`${engine} · ${c.name} · server CPU ms/req`, 'ms', false);
    log(`${engine} · ${c.name}: ${warmup} s warm-up each, then ${rounds} rounds of ${seconds} s per version`);
    for (const side of SIDES) await load(servers[side].url, c, servers[side].fixture, warmup, connections);
    for (let r = 0; r < rounds; r++) {
      for (const side of shuffle(SIDES)) {
        const { child, url, fixture } = servers[side];
        const before = cpuMsOf(child);
        const res = await load(url, c, fixture, seconds, connections);
        if (res.non2xx || res.errors || res.timeouts) throw new Error(`${engine} · ${c.name} on ${side}: ${res.non2xx} non-2xx, ${res.errors + res.timeouts} errors`);
        rps[side].push(res.requests.total / res.duration);
        cpu[side].push((cpuMsOf(child) - before) / Math.max(1, res.requests.total));
      }
    }
  }
  await Promise.all(SIDES.map((s) => stopChild(servers[s].child)));
}

function webhookSide(tree: string, databaseUrl: string): { child: ChildProcess; ready: Promise<void>; say<T>(c: GuardWebhookCommand, timeoutMs?: number): Promise<T> } {
  const child = fork(path.join(here, 'guard-webhook-side.ts'), [JSON.stringify({ tree, databaseUrl })], { cwd: tree, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  webhookSides.push(child);
  const next = <T>(timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the webhook side in ${tree} did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
      const exited = (code: number | null) => reject(new Error(`the webhook side in ${tree} exited (${code})`));
      child.once('exit', exited);
      child.once('message', (m: { ok: boolean; result?: T; error?: string }) => {
        clearTimeout(timer);
        child.off('exit', exited);
        if (m.ok) resolve(m.result as T);
        else reject(new Error(m.error));
      });
    });
  return {
    child,
    ready: next<void>(300_000),
    say<T>(command: GuardWebhookCommand, timeoutMs = 180_000) {
      const answer = next<T>(timeoutMs);
      child.send(command);
      return answer;
    },
  };
}

async function webhookPart(trees: Record<Side, string>, serverUrl: string) {
  log('webhooks: setting up both versions (dev server, worker, relay, workspaces)…');
  const sides = {} as Record<Side, ReturnType<typeof webhookSide>>;
  for (const side of SIDES) sides[side] = webhookSide(trees[side], await createDatabase(serverUrl, `guard_webhooks_${side}`));
  await Promise.all(SIDES.map((s) => sides[s].ready));
  const events = Number(opts.events);
  const perSecond = [1, 2].map((k) => ({ k, rate: figure(`webhooks · ${k} subscription${k > 1 ? 's' : ''} per event · deliveries/s`, '/s', true), cpu: figure(`webhooks · ${k} subscription${k > 1 ? 's' : ''} per event · machine CPU ms/delivery`, 'ms', false) }));
  const p50 = figure('webhooks · idle · event to first attempt p50 ms', 'ms', false);
  const p99 = figure('webhooks · idle · event to first attempt p99 ms', 'ms', false);
  for (let r = 0; r < webhookRounds; r++) {
    log(`webhooks: round ${r + 1} of ${webhookRounds}`);
    for (const { k, rate, cpu } of perSecond) {
      for (const side of shuffle(SIDES)) {
        const t = await sides[side].say<GuardThroughput>({ cmd: 'throughput', subscriptions: k, events });
        if (t.missing) throw new Error(`webhooks on ${side}: ${t.missing} of ${events * k} deliveries did not arrive`);
        rate[side].push(t.perSecond);
        cpu[side].push(t.machineCpuMs);
      }
    }
    for (const side of shuffle(SIDES)) {
      const l = await sides[side].say<GuardLatency>({ cmd: 'idle', seconds: Number(opts['idle-seconds']), everyMs: Number(opts['idle-every-ms']) });
      p50[side].push(l.p50 ?? Infinity);
      p99[side].push(l.p99 ?? Infinity);
    }
  }
  await Promise.all(SIDES.map((s) => sides[s].say({ cmd: 'stop' }, 60_000).catch((err) => log(`stopping ${s}: ${(err as Error).message}`))));
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');
const digitsOf = (f: Figure) => (f.unit === 'ms' && median(f.base) < 10 ? 3 : 0);

async function main() {
  const loadBefore = uptime();
  const baseRev = opts.base ?? defaultBase();
  log(`Checking out the base (${baseRev}) in a temporary worktree…`);
  worktree = addBaselineWorktree(root, baseRev);
  const trees: Record<Side, string> = { base: worktree.dir, current: root };
  const { commit, dirty } = currentCommit(root);
  const database = await benchDatabase(log);
  cluster = database.cluster;

  if (parts.has('api') || parts.has('embedded')) {
    log('Bundling both versions\' API servers, each with its own build…');
    await bundle({ app: path.join(here, 'servers', 'app.ts') }, path.join(distDir, 'bench'));
    const bundles: Record<Side, string> = { base: bundleAppIn(worktree.dir), current: path.join(distDir, 'bench', 'app.js') };
    if (parts.has('api')) await apiPart('postgres', trees, bundles, database.url);
    if (parts.has('embedded')) await apiPart('embedded', trees, bundles, database.url);
  }
  if (parts.has('webhooks')) await webhookPart(trees, database.url);
  const loadAfter = uptime();
  const baseCommit = worktree.commit;
  const minutes = (Date.now() - started) / 60_000;
  await cleanup();

  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const lines = [
    `# Guard: \`${commit}\`${dirty ? ' (with uncommitted changes)' : ''} against \`${baseCommit}\` (${date})`,
    '',
    `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores; Node ${process.version}; PostgreSQL ${database.version} (${database.note}). ${fmt(minutes, 1)} minutes.`,
    `API: ${rounds} rounds of ${seconds} s per version and case, ${connections} connections, after ${warmup} s of warm-up each. Webhooks: ${webhookRounds} rounds of ${fmt(Number(opts.events))} events per subscription count, and ${opts['idle-seconds']} s of one event every ${opts['idle-every-ms']} ms on an idle service.`,
    `Load before: \`${loadBefore}\``,
    `Load after: \`${loadAfter}\``,
    '',
    '| Figure | base | current | current ÷ base: median of rounds (range) | verdict |',
    '|---|--:|--:|--:|---|',
  ];
  for (const f of figures) {
    const v = verdictOf(f);
    const d = digitsOf(f);
    lines.push(`| ${f.name} | ${fmt(median(f.base), d)} | ${fmt(median(f.current), d)} | ${fmt(v.ratio, 3)} (${fmt(v.min, 2)}–${fmt(v.max, 2)}) | ${v.flag === 'regression' ? '**REGRESSION**' : v.flag} |`);
  }
  const regressions = figures.filter((f) => verdictOf(f).flag === 'regression');
  lines.push('', regressions.length ? `**${regressions.length} regression(s)**: ${regressions.map((f) => f.name).join('; ')}.` : 'No regression beyond 10% that every round confirms.', '');
  console.log(lines.join('\n'));
  if (!opts['no-history']) {
    writeResults(path.join(here, 'results', 'guard-latest.md'), lines.join('\n'), log);
    appendHistory(HISTORY_FILE, figures, { date, commit: dirty ? `${commit}+` : commit, base: baseCommit });
    log(`Appended ${figures.length} lines to ${path.relative(process.cwd(), HISTORY_FILE)}`);
  }
  if (regressions.length) process.exitCode = 3;
}

// The run is bounded: set-ups, rounds and every command have time-outs; this bounds the whole.
runBench(main, cleanup, 15 * 60_000);
