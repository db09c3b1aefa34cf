// `npm run bench:api-cost`: what this code costs against an earlier commit of itself, on the same
// machine at the same moment. Both versions of the API (`npm start -- api`, bundled and run by
// plain node with the same flags) serve one database; for each case, short load rounds alternate
// between them in random order, so that whatever else the machine does weighs on both alike.
// Figures: requests per second and the server's CPU ms per request, summed over the rounds; the
// cost is the median over rounds of the ratio of each round's two back-to-back loads.
//
//   npm run bench:api-cost [-- --baseline 3aaed81 --only boards,tickets --rounds 6 --seconds 3 --connections 16]
//
// The baseline is checked out into a temporary git worktree (node_modules shared with this
// checkout) and bundled with its own scripts/build.ts. Default: the commit before the hardening of
// 2026-11-23 (issue 10), whose limits must cost under 5%. PostgreSQL: DATABASE_URL, else a
// throwaway cluster. Writes bench/results/api-cost-latest.md when every case runs.
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../scripts/throwaway-postgres.ts';
import type { BenchFixture } from './servers/listen.ts';
import { bundle, distDir } from '../scripts/build.ts';
import { runBench, writeResults } from './lifecycle.ts';
import { addBaselineWorktree, bundleAppIn, currentCommit, type BaselineWorktree } from './baseline-worktree.ts';
import { productionNode } from './production.ts';
import { children, cpuMsOf, fmt, load, mark, start, stopChild, uptime, type BenchCase } from './api-load.ts';
import { newSecretKeys } from '../src/webhooks/message/secret-box.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const RESULTS_FILE = path.join(here, 'results', 'api-cost-latest.md');
/** The last commit before the hardening of 2026-11-23 (issue 10). */
const BEFORE_HARDENING = '3aaed81';
const TARGET = 0.05;

const { values: opts } = parseArgs({
  options: {
    baseline: { type: 'string', default: BEFORE_HARDENING },
    only: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
  },
});
const rounds = Number(opts.rounds);
const seconds = Number(opts.seconds);
const warmup = Number(opts.warmup);
const connections = Number(opts.connections);

const CASES: BenchCase[] = [
  { id: 'me', name: 'GET /me', method: 'GET', path: '/public/v1/me' },
  { id: 'boards', name: 'GET /boards', method: 'GET', path: '/public/v1/boards' },
  { id: 'tickets', name: 'GET /tickets (page of 50)', method: 'GET', path: '/public/v1/tickets' },
  { id: 'post', name: 'POST /tickets', method: 'POST', path: '/public/v1/tickets' },
  { id: 'post-idem', name: 'POST /tickets + Idempotency-Key', method: 'POST', path: '/public/v1/tickets', idempotent: true },
];
const only = opts.only?.split(',').map((s) => s.trim());
const cases = only ? CASES.filter((c) => only.includes(c.id)) : CASES;
if (!cases.length) throw new Error(`--only names no case; cases: ${CASES.map((c) => c.id).join(', ')}`);

type Side = 'baseline' | 'current';
let cluster: ThrowawayPostgres | undefined;
let worktree: BaselineWorktree | undefined;

async function cleanup() {
  await Promise.all(children.map(stopChild));
  cluster?.stop();
  cluster = undefined;
  worktree?.remove();
  worktree = undefined;
}
const budgetMs = (300 + cases.length * (2 * warmup + rounds * 2 * (seconds + 2))) * 1000;

/** The baseline's own bench server, bundled in a temporary worktree. */
function bundleBaseline(rev: string): { file: string; commit: string } {
  const tree = addBaselineWorktree(root, rev);
  worktree = tree;
  return { file: bundleAppIn(tree.dir), commit: tree.commit };
}

interface Tally {
  requests: number;
  seconds: number;
  cpuMs: number;
  non2xx: number;
  errors: number;
}

function shuffle<T>(xs: T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

async function main() {
  const loadBefore = uptime();
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error('Starting a throwaway PostgreSQL cluster…');
    cluster = await startThrowawayPostgres({ database: 'bench' });
    databaseUrl = cluster.url;
  }
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production', SEED_DEMO: 'false', WEBHOOK_SECRET_KEYS: newSecretKeys() };
  console.error('Seeding (this code\'s migrations and seed): one workspace, an unthrottled key, 500 tickets…');
  const seeding = start<BenchFixture>(path.join(here, 'seed.ts'), env, [], ['--import', 'tsx'], 180_000);
  const fixture = await seeding.message;
  await stopChild(seeding.child);

  console.error(`Bundling the baseline (${opts.baseline}) in a temporary worktree, and this code…`);
  const baseline = bundleBaseline(opts.baseline);
  await bundle({ app: path.join(here, 'servers', 'app.ts') }, path.join(distDir, 'bench'));
  const files: Record<Side, string> = { baseline: baseline.file, current: path.join(distDir, 'bench', 'app.js') };

  const production = productionNode('api');
  const servers = {} as Record<Side, { child: ChildProcess; url: string }>;
  for (const side of ['baseline', 'current'] as const) {
    const { child, message } = start<{ port: number }>(files[side], { ...env, ...production.env }, [JSON.stringify(fixture)], production.flags);
    servers[side] = { child, url: `http://127.0.0.1:${(await message).port}` };
  }

  /** Per round, current ÷ baseline of the two adjacent loads: throughput and CPU per request. */
  type Pair = { throughput: number; cpu: number };
  const results: { c: BenchCase; tally: Record<Side, Tally>; pairs: Pair[] }[] = [];
  for (const c of cases) {
    const tally: Record<Side, Tally> = {
      baseline: { requests: 0, seconds: 0, cpuMs: 0, non2xx: 0, errors: 0 },
      current: { requests: 0, seconds: 0, cpuMs: 0, non2xx: 0, errors: 0 },
    };
    console.error(`${c.name}: ${warmup} s warm-up each, then ${rounds} rounds of ${seconds} s per version, in random order`);
    for (const side of ['baseline', 'current'] as const) await load(servers[side].url, c, fixture, warmup, connections);
    const pairs: Pair[] = [];
    for (let r = 0; r < rounds; r++) {
      const round = {} as Record<Side, { rps: number; cpu: number }>;
      for (const side of shuffle(['baseline', 'current'] as const)) {
        const { child, url } = servers[side];
        const cpuBefore = cpuMsOf(child);
        const res = await load(url, c, fixture, seconds, connections);
        const t = tally[side];
        t.cpuMs += cpuMsOf(child) - cpuBefore;
        t.requests += res.requests.total;
        t.seconds += res.duration;
        t.non2xx += res.non2xx;
        t.errors += res.errors + res.timeouts;
        round[side] = { rps: res.requests.total / res.duration, cpu: (cpuMsOf(child) - cpuBefore) / Math.max(1, res.requests.total) };
      }
      pairs.push({ throughput: round.current.rps / round.baseline.rps, cpu: round.current.cpu / round.baseline.cpu });
    }
    results.push({ c, tally, pairs });
  }
  const loadAfter = uptime();
  const { commit: current, dirty } = currentCommit(root);
  await cleanup();

  const rps = (t: Tally) => t.requests / t.seconds;
  const cpu = (t: Tally) => t.cpuMs / Math.max(1, t.requests);
  const lines = [
    `# API cost against an earlier commit (${new Date().toISOString().replace(/\.\d+Z$/, 'Z')})`,
    '',
    `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores; Node ${process.version}. Baseline \`${baseline.commit}\`, current \`${current}\`${dirty ? ' with uncommitted changes' : ''}.`,
    `Both as \`npm start -- api\` runs (\`${production.flags.join(' ')}\`), on one database; ${connections} connections; per case ${warmup} s warm-up each, then ${rounds} rounds of ${seconds} s per version in random order. Server CPU from /proc (10 ms ticks).`,
    `Load before: \`${loadBefore}\``,
    `Load after: \`${loadAfter}\``,
    '',
    '| Case | baseline req/s | current req/s | throughput cost, median of rounds (middle half) | baseline CPU ms/req | current CPU ms/req | CPU cost, median of rounds | ≤ 5% |',
    '|---|--:|--:|--:|--:|--:|--:|---|',
  ];
  const pct = (x: number) => `${x >= 0 ? '+' : '−'}${fmt(Math.abs(x) * 100, 1)}%`;
  /** The q-quantile (nearest rank) of xs. */
  const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.round(q * (xs.length - 1))))];
  for (const { c, tally, pairs } of results) {
    // Each round's two loads ran back to back, so their ratio shares the machine's state of the
    // moment; the median of those ratios is what a burst of other work does not move.
    const costs = pairs.map((p) => 1 - p.throughput);
    const throughputCost = quantile(costs, 0.5);
    const cpuCost = quantile(pairs.map((p) => p.cpu), 0.5) - 1;
    lines.push(
      `| ${c.name} | ${fmt(rps(tally.baseline))} | ${fmt(rps(tally.current))} | ${pct(throughputCost)} (${pct(quantile(costs, 0.25))} … ${pct(quantile(costs, 0.75))}) | ${fmt(cpu(tally.baseline), 3)} | ${fmt(cpu(tally.current), 3)} | ${pct(cpuCost)} | ${mark(throughputCost <= TARGET)} |`,
    );
  }
  const bad = results.flatMap(({ c, tally }) => (['baseline', 'current'] as const).filter((s) => tally[s].non2xx || tally[s].errors).map((s) => `${c.name} on ${s}`));
  lines.push('', `Non-2xx answers or errors: ${bad.length ? bad.join(', ') : 'none'}.`, '');
  const markdown = lines.join('\n');
  console.log(markdown);
  if (!only) {
    writeResults(RESULTS_FILE, markdown);
  }
}

runBench(main, cleanup, budgetMs);
