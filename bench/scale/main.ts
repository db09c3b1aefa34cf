// `npm run bench:scale`: the hot queries at 10k and at 1M rows (tickets, events; 3× as many
// delivery attempts; 1,000 subscriptions either way), p50/p99 of each, and the ratio of the
// two p99s (target: at most 1.3). Each scale gets its own database, generated in SQL
// (generate.ts) and measured in its own process (run.ts); the cases are in cases.ts.
//
//   npm run bench:scale [-- --scales 10000,1000000 --rounds 3 --requests 100 --only log,claim --keep]
//
// PostgreSQL: SCALE_DATABASE_URL (a server where this may create and drop databases
// `scale_<rows>`), else a throwaway cluster (fsync off) started and stopped here. --keep keeps the
// databases and the fixture files ($TMPDIR/bench-scale-<rows>.json), and a later run reuses them:
// with SCALE_DATABASE_URL only, as the throwaway cluster is removed at the end. Delete the fixture
// files to generate again (e.g. after a migration changed, or when the purge has used every day).
import { execFileSync, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startThrowawayCluster, type ThrowawayCluster } from '../postgres.ts';
import type { CaseFigures } from './run.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsDir = path.join(here, '..', 'results');
const TARGET_RATIO = 1.3;
/** The generated workspaces' API keys and ids, for a later run with --keep. */
const fixtureFile = (rows: number) => path.join(os.tmpdir(), `bench-scale-${rows}.json`);

const { values: opts } = parseArgs({
  options: {
    scales: { type: 'string', default: '10000,1000000' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '100' },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const scales = opts.scales.split(',').map(Number);

let cluster: ThrowawayCluster | undefined;
let serverUrl = process.env.SCALE_DATABASE_URL;
if (!serverUrl) {
  cluster = await startThrowawayCluster();
  serverUrl = cluster.url;
}
const databaseUrl = (name: string) => {
  const url = new URL(serverUrl!);
  url.pathname = `/${name}`;
  return url.toString();
};

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function measure(rows: number): Promise<CaseFigures[]> {
  const fixture = fixtureFile(rows);
  const args = ['--rows', String(rows), '--rounds', opts.rounds, '--requests', opts.requests, ...(opts.keep ? ['--fixture', fixture] : []), ...(opts.only ? ['--only', opts.only] : [])];
  const env = { ...process.env, DATABASE_URL: databaseUrl(`scale_${rows}`), LOG_LEVEL: 'warn', NODE_ENV: 'production', SEED_DEMO: 'false' };
  const child = fork(path.join(here, 'run.ts'), args, { env, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve((m as { figures: CaseFigures[] }).figures));
    child.once('exit', (code) => reject(new Error(`the run at ${rows} rows exited (${code}) before reporting`)));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => (n < 10 ? n.toFixed(1) : n.toFixed(0));

const results = new Map<number, CaseFigures[]>();
const load: string[] = [];
try {
  for (const rows of scales) {
    const reuse = opts.keep && fs.existsSync(fixtureFile(rows));
    if (!reuse) {
      await admin(`DROP DATABASE IF EXISTS scale_${rows}`);
      await admin(`CREATE DATABASE scale_${rows}`);
    }
    load.push(`before ${rows}: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
    results.set(rows, await measure(rows));
    load.push(`after ${rows}: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
    if (!opts.keep) await admin(`DROP DATABASE scale_${rows}`);
  }
} finally {
  cluster?.stop();
}

// The two scales compared: those given, or with one given, the default pair it belongs to (a
// scale not run shows "–" and gets no ratio or verdict).
const defaultScales = [10_000, 1_000_000];
const [small, large] = scales.length > 1 ? scales : defaultScales.includes(scales[0]!) ? defaultScales : [defaultScales[0]!, scales[0]!];
const figuresOf = (rows: number, id: string) => {
  const f = results.get(rows)?.find((x) => x.id === id);
  return f && { p50: median(f.rounds.map((r) => r.p50)), p99: median(f.rounds.map((r) => r.p99)), comparable: f.comparable !== false, pageRows: f.pageRows };
};
const cell = (n: number | undefined) => (n === undefined ? '–' : fmt(n));
const lines = [
  `Rows: ${[small, large].map((r) => `${r}${results.has(r!) ? '' : ' (not run)'}`).join(' vs ')} (tickets and events; attempts 3×); ${opts.rounds} rounds of ${opts.requests} timed calls per case, medians of the rounds' p50 and p99 (ms).`,
  '',
  `| Case | p50 @${small} | p99 @${small} | p50 @${large} | p99 @${large} | p99 ratio | ≤ ${TARGET_RATIO}× | entries per page @${small} / @${large} |`,
  '|---|--:|--:|--:|--:|--:|---|--:|',
];
const cases = [...new Map([...(results.get(small!) ?? []), ...(results.get(large!) ?? [])].map((f) => [f.id, f.name])).entries()];
for (const [id, name] of cases) {
  const a = figuresOf(small!, id);
  const b = figuresOf(large!, id);
  const ratio = a && b && a.comparable && b.comparable ? b.p99 / a.p99 : undefined;
  const verdict = ratio === undefined ? '–' : ratio <= TARGET_RATIO ? 'yes' : '**no**';
  const entries = a?.pageRows === undefined && b?.pageRows === undefined ? '' : `${cell(a?.pageRows)} / ${cell(b?.pageRows)}`;
  lines.push(`| ${name} | ${cell(a?.p50)} | ${cell(a?.p99)} | ${cell(b?.p50)} | ${cell(b?.p99)} | ${ratio === undefined ? '–' : ratio.toFixed(2)} | ${verdict} | ${entries} |`);
}
for (const [rows, figures] of results) for (const f of figures) if (f.note) lines.push('', `${f.name} @${rows}: ${f.note}`);
lines.push('', 'Machine load:', ...load.map((l) => `- ${l}`));
const table = lines.join('\n');
console.log(`\n${table}`);
if (!opts.only) fs.writeFileSync(path.join(resultsDir, 'scale-latest.md'), `${table}\n`);
