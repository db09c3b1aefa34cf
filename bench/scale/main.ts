// `npm run bench:scale`: the hot queries at 10k and at 1M rows (tickets, events; 3× as many
// delivery attempts; one workspace with 10 subscriptions per 10,000 rows, so 1,000 subscriptions
// at 1M), p50/p99 of each, and the ratio of the two p99s (target: at most 1.3). Each scale gets
// its own database, generated in SQL (generate.ts), and its own process (run.ts), which serves
// the app; the cases are in cases.ts. Both scales are generated first; then each case runs its
// rounds with the scales taking turns (10k then 1M, then 1M then 10k, …), so that both see the
// same machine: on a shared machine, figures taken minutes apart differ by more than the
// target allows.
//
//   npm run bench:scale [-- --scales 10000,1000000 --rounds 5 --requests 200 --only log,claim --keep]
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
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../scripts/throwaway-postgres.ts';
import type { PurgeFigures, Reply, Request, RoundFigures } from './run.ts';
import { newSecretKeys } from '../../src/webhooks/message/secret-box.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsDir = path.join(here, '..', 'results');
const TARGET_RATIO = 1.3;
/** The generated workspaces' API keys and ids, for a later run with --keep. */
const fixtureFile = (rows: number) => path.join(os.tmpdir(), `bench-scale-${rows}.json`);

const { values: opts } = parseArgs({
  options: {
    scales: { type: 'string', default: '10000,1000000' },
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '200' },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const scales = opts.scales.split(',').map(Number);
const rounds = Number(opts.rounds);

let cluster: ThrowawayPostgres | undefined;
let serverUrl = process.env.SCALE_DATABASE_URL;
if (!serverUrl) {
  cluster = await startThrowawayPostgres({ database: 'bench' });
  serverUrl = cluster.url;
}
const databaseUrl = (name: string) => {
  const url = new URL(serverUrl);
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

interface ScaleRun {
  rows: number;
  cases: { id: string; name: string }[];
  ask(request: Request): Promise<RoundFigures | PurgeFigures>;
  end(): Promise<void>;
}

/** Starts the process of one scale and waits until its data is there and it serves. */
async function start(rows: number): Promise<ScaleRun> {
  const fixture = fixtureFile(rows);
  const args = ['--rows', String(rows), '--requests', opts.requests, ...(opts.keep ? ['--fixture', fixture] : []), ...(opts.only ? ['--only', opts.only] : [])];
  const env = { ...process.env, DATABASE_URL: databaseUrl(`scale_${rows}`), LOG_LEVEL: 'warn', NODE_ENV: 'production', SEED_DEMO: 'false', WEBHOOK_SECRET_KEYS: newSecretKeys() };
  const child = fork(path.join(here, 'run.ts'), args, { env, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  // One request at a time: the next message is the answer to the one outstanding.
  let waiting: { resolve: (reply: Reply) => void; reject: (err: Error) => void } | undefined;
  let exited: Error | undefined;
  child.on('message', (reply) => waiting?.resolve(reply as Reply));
  const ended = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = new Error(`the run at ${rows} rows exited (${code}) before answering`);
      waiting?.reject(exited);
      resolve();
    }),
  );
  const next = () => new Promise<Reply>((resolve, reject) => (exited ? reject(exited) : (waiting = { resolve, reject })));
  const ready = await next();
  if (!('ready' in ready)) throw new Error(`the run at ${rows} rows answered before it was ready`);
  return {
    rows,
    cases: ready.ready,
    async ask(request) {
      const reply = next();
      child.send(request);
      const answer = await reply;
      if (!('round' in answer)) throw new Error(`the run at ${rows} rows did not answer with a round`);
      return answer.round;
    },
    async end() {
      if (!exited) child.send({ done: true });
      await ended;
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (n: number) => (n < 10 ? n.toFixed(1) : n.toFixed(0));
const uptime = (when: string) => `${when}: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`;

/** Per scale, per case id, the rounds' figures. */
const results = new Map<number, Map<string, RoundFigures[]>>();
const purges = new Map<number, PurgeFigures[]>();
const names = new Map<string, string>();
const load: string[] = [];
const runs: ScaleRun[] = [];
try {
  load.push(uptime('before generating'));
  for (const rows of scales) {
    const reuse = opts.keep && fs.existsSync(fixtureFile(rows));
    if (!reuse) {
      await admin(`DROP DATABASE IF EXISTS scale_${rows}`);
      await admin(`CREATE DATABASE scale_${rows}`);
    }
    const run = await start(rows);
    runs.push(run);
    results.set(rows, new Map());
    for (const c of run.cases) names.set(c.id, c.name);
  }
  load.push(uptime('before measuring'));
  // Round r of a case: each scale in turn, the first alternating.
  const turns = (round: number) => (round % 2 ? [...runs].reverse() : runs);
  for (const id of names.keys()) {
    for (let round = 0; round < rounds; round++) {
      for (const run of turns(round)) {
        const figures = results.get(run.rows)!;
        figures.set(id, [...(figures.get(id) ?? []), await run.ask({ case: id })]);
      }
    }
  }
  if (!opts.only || opts.only.split(',').includes('purge')) {
    for (let round = 0; round < rounds; round++) {
      for (const run of turns(round)) purges.set(run.rows, [...(purges.get(run.rows) ?? []), (await run.ask({ purge: true })) as PurgeFigures]);
    }
  }
  load.push(uptime('after measuring'));
  for (const run of runs.splice(0)) await run.end();
  if (!opts.keep) for (const rows of scales) await admin(`DROP DATABASE scale_${rows}`);
} finally {
  for (const run of runs) await run.end();
  cluster?.stop();
}

// Purging one day: the time per 1,000 rows deleted compares across scales; one batch statement
// does not (a day at the small scale is a few short batches, at the large one many full ones).
const notes: string[] = [];
if (purges.size) {
  names.set('purge-per-1k', 'retention purge of one day, ms per 1,000 rows');
  names.set('purge', 'retention purge of one day, one batch statement (not comparable)');
}
for (const [rows, days] of purges) {
  results.get(rows)!.set('purge-per-1k', days.map((d) => ({ p50: d.perThousand, p99: d.perThousand })));
  results.get(rows)!.set('purge', days);
  notes.push(
    '',
    `retention purge @${rows}: ${days[0].deleted} rows a day in batches of up to ${days[0].batchSize}, so a statement's time depends on the scale (compare the time per 1,000 rows); ms per 1,000 rows: ${days.map((d) => d.perThousand.toFixed(1)).join(', ')}; whole run ms: ${days.map((d) => d.ms.toFixed(0)).join(', ')}`,
  );
}

// The two scales compared: those given, or with one given, the default pair it belongs to (a
// scale not run shows "–" and gets no ratio or verdict).
const defaultScales = [10_000, 1_000_000];
const [small, large] = scales.length > 1 ? scales : defaultScales.includes(scales[0]) ? defaultScales : [defaultScales[0], scales[0]];
const figuresOf = (rows: number, id: string) => {
  const f = results.get(rows)?.get(id);
  const pageRows = f?.flatMap((r) => (r.pageRows === undefined ? [] : [r.pageRows]));
  return f && { p50: median(f.map((r) => r.p50)), p99: median(f.map((r) => r.p99)), pageRows: pageRows?.length ? mean(pageRows) : undefined };
};
const cell = (n: number | undefined) => (n === undefined ? '–' : fmt(n));
const lines = [
  `Rows: ${[small, large].map((r) => `${r}${results.has(r) ? '' : ' (not run)'}`).join(' vs ')} (tickets and events; attempts 3×; one workspace of 10 subscriptions per 10,000). ${opts.rounds} rounds of ${opts.requests} timed calls per case, the scales taking turns round by round; medians of the rounds' p50 and p99 (ms).`,
  '',
  `| Case | p50 @${small} | p99 @${small} | p50 @${large} | p99 @${large} | p99 ratio | ≤ ${TARGET_RATIO}× | entries per page @${small} / @${large} |`,
  '|---|--:|--:|--:|--:|--:|---|--:|',
];
for (const [id, name] of names) {
  const a = figuresOf(small, id);
  const b = figuresOf(large, id);
  const ratio = a && b && id !== 'purge' ? b.p99 / a.p99 : undefined;
  const verdict = ratio === undefined ? '–' : ratio <= TARGET_RATIO ? 'yes' : '**no**';
  const entries = a?.pageRows === undefined && b?.pageRows === undefined ? '' : `${cell(a?.pageRows)} / ${cell(b?.pageRows)}`;
  lines.push(`| ${name} | ${cell(a?.p50)} | ${cell(a?.p99)} | ${cell(b?.p50)} | ${cell(b?.p99)} | ${ratio === undefined ? '–' : ratio.toFixed(2)} | ${verdict} | ${entries} |`);
}
lines.push(...notes, '', 'Machine load:', ...load.map((l) => `- ${l}`));
const table = lines.join('\n');
console.log(`\n${table}`);
if (!opts.only) fs.writeFileSync(path.join(resultsDir, 'scale-latest.md'), `${table}\n`);
