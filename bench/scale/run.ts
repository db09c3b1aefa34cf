// One scale of the scale benchmark, in its own process (DATABASE_URL is its database, which
// src/config.ts reads once): generates the data unless it is there already, serves the app on
// a loopback port, times every case of cases.ts and the retention purge, and sends the figures
// to the parent (main.ts) over IPC.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { db, migrate } from '../../src/db/db.ts';
import { createApp } from '../../src/http/app.ts';
import { serveHttp } from '../../src/http/serve.ts';
import { config } from '../../src/config.ts';
import { purge, type RetentionPolicy } from '../../src/retention/retention.service.ts';
import { RETENTION_TARGETS } from '../../src/retention/retention.targets.ts';
import { CASES, type CaseContext } from './cases.ts';
import { DAYS, generate, type ScaleFixture } from './generate.ts';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string' },
    fixture: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '100' },
    only: { type: 'string' },
  },
});
const rows = Number(opts.rows);
const rounds = Number(opts.rounds);
const requests = Number(opts.requests);
const WARMUP = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface CaseFigures {
  id: string;
  name: string;
  /** Per round: the p50 and p99 in ms. */
  rounds: { p50: number; p99: number }[];
  note?: string;
  /** The mean number of entries in the responses' `data` (a list page): a page the data cannot fill costs less. */
  pageRows?: number;
  /** false: the figure depends on the scale by design, so main.ts shows it without ratio or verdict. */
  comparable?: false;
}

const log = (line: string) => console.error(`[${rows}] ${line}`);

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

await migrate();
let fixture: ScaleFixture;
if (opts.fixture && fs.existsSync(opts.fixture)) {
  fixture = JSON.parse(fs.readFileSync(opts.fixture, 'utf8')) as ScaleFixture;
  log('data already generated');
} else {
  const started = Date.now();
  fixture = await generate(config.database.kind === 'postgres' ? config.database.url : '', rows, log);
  log(`generated in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (opts.fixture) fs.writeFileSync(opts.fixture, JSON.stringify(fixture));
}

const listener = await serveHttp(createApp().fetch, 0, '127.0.0.1');
const base = `http://127.0.0.1:${listener.port}/public/v1`;
let seed = 42;
/** The `data` lengths of the list pages the current case got. */
let pageRows: number[] = [];
const ctx: CaseContext = {
  fixture,
  random: (max) => {
    // A fixed sequence, so both scales ask for the same workspaces and subscriptions.
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % max;
  },
  async get(n, path) {
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${fixture.workspaces[n]!.apiKey}` } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${body.slice(0, 300)}`);
    const parsed = JSON.parse(body) as { data?: unknown };
    if (Array.isArray(parsed.data)) pageRows.push(parsed.data.length);
    return parsed;
  },
};

const only = opts.only?.split(',');
const figures: CaseFigures[] = [];
for (const c of CASES.filter((c) => !only || only.includes(c.id))) {
  const perRound = [];
  pageRows = [];
  for (let round = 0; round < rounds; round++) {
    const times: number[] = [];
    for (let i = 0; i < WARMUP + requests; i++) {
      const started = performance.now();
      const undo = await c.run(ctx);
      const ms = performance.now() - started;
      if (undo) await undo();
      if (i >= WARMUP) times.push(ms);
    }
    times.sort((a, b) => a - b);
    perRound.push({ p50: percentile(times, 50), p99: percentile(times, 99) });
  }
  const meanRows = pageRows.length ? pageRows.reduce((a, b) => a + b, 0) / pageRows.length : undefined;
  figures.push({ id: c.id, name: c.name, rounds: perRound, pageRows: meanRows });
  log(`${c.id}: ${perRound.map((r) => `${r.p50.toFixed(1)}/${r.p99.toFixed(1)}`).join(' ')}`);
}

// The purge: round r runs retention as of the moment that puts the cutoff one day further into
// the generated DAYS, so each round deletes the next day's worth. Figures: ms per 1,000 rows
// deleted (the whole run; comparable across scales, where a day holds 100× the rows) and the
// p50/p99 of one batch statement.
if (!only || only.includes('purge')) {
  const policy: RetentionPolicy = config.retention;
  const perRound = [];
  let rowsPerRound = 0;
  // Days the generated data has beyond the window, minus those purged by earlier runs.
  const firstDay = fixture.purgedDays ?? 0;
  for (let round = 0; round < rounds; round++) {
    const day = firstDay + round;
    if (day >= DAYS - policy.webhookLogDays) throw new Error('every generated day beyond the window is purged: generate the data again');
    const now = new Date(new Date(fixture.generatedAt).getTime() - (DAYS - policy.webhookLogDays - 1 - day) * DAY_MS);
    const batches: number[] = [];
    let deleted = 0;
    const started = performance.now();
    for (const target of RETENTION_TARGETS) {
      let last = performance.now();
      let before = 0;
      deleted += await purge(target, {
        now,
        policy,
        onBatch: ({ deleted: total }) => {
          const t = performance.now();
          if (total > before) batches.push(t - last);
          before = total;
          last = t;
        },
      });
    }
    const ms = performance.now() - started;
    batches.sort((a, b) => a - b);
    rowsPerRound = deleted;
    perRound.push({ p50: percentile(batches, 50), p99: percentile(batches, 99), perThousand: (ms / Math.max(1, deleted)) * 1000, ms, deleted });
    fixture.purgedDays = day + 1;
    if (opts.fixture) fs.writeFileSync(opts.fixture, JSON.stringify(fixture));
    log(`purge round ${round}: ${deleted} rows (deliveries, attempts, events) in ${ms.toFixed(0)} ms, ${batches.length} batches`);
  }
  figures.push({ id: 'purge-per-1k', name: 'retention purge of one day, ms per 1,000 rows', rounds: perRound.map((r) => ({ p50: r.perThousand, p99: r.perThousand })) });
  figures.push({
    id: 'purge',
    name: 'retention purge of one day, one batch statement (not comparable)',
    rounds: perRound.map((r) => ({ p50: r.p50, p99: r.p99 })),
    // A statement deletes up to batchSize rows: a day at the small scale is a few short batches,
    // at the large one many full ones, so only the time per 1,000 rows compares.
    comparable: false,
    note: `${rowsPerRound} rows a day in batches of up to ${policy.batchSize}, so a statement's time depends on the scale (compare the time per 1,000 rows); ms per 1,000 rows: ${perRound.map((r) => r.perThousand.toFixed(1)).join(', ')}; whole run ms: ${perRound.map((r) => r.ms.toFixed(0)).join(', ')}`,
  });
}

await listener.close(1000);
await db.close();
await new Promise<void>((resolve, reject) => process.send!({ figures }, (err: Error | null) => (err ? reject(err) : resolve())));
process.disconnect();
