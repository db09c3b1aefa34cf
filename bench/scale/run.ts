// One scale of the scale benchmark, in its own process (DATABASE_URL is its database, which
// src/config.ts reads once): generates the data unless it is there already, serves the app on
// a loopback port, says `ready` (with its cases) to the parent (main.ts) over IPC, then runs
// what the parent asks, one round at a time, and answers with the round's figures: main.ts
// alternates the scales round by round, so that both see the same machine.
import { on } from 'node:events';
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
import { percentile } from '../percentile.ts';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string' },
    fixture: { type: 'string' },
    requests: { type: 'string', default: '200' },
    only: { type: 'string' },
  },
});
const rows = Number(opts.rows);
const requests = Number(opts.requests);
const WARMUP = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What the parent asks: one round of a case (its `requests` timed calls), one day's purge, or the end. */
export type Request = { case: string } | { purge: true } | { done: true };

/** One round's figures, in ms. */
export interface RoundFigures {
  p50: number;
  p99: number;
  /** The mean number of entries in the list pages' `data`: a page the data cannot fill costs less. */
  pageRows?: number;
}

/** The purge's round: its batch statements' p50/p99, and the whole run. */
export interface PurgeFigures extends RoundFigures {
  perThousand: number;
  ms: number;
  deleted: number;
  batchSize: number;
}

export type Reply = { ready: { id: string; name: string }[] } | { round: RoundFigures | PurgeFigures };

const log = (line: string) => console.error(`[${rows}] ${line}`);
// Without the parent (ended, or interrupted) there is nothing to answer.
process.once('disconnect', () => process.exit(0));


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
    // A fixed sequence, so that every run asks for the same workspaces and subscriptions; from
    // the high bits, as the low bits of this generator repeat within a few numbers.
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * max);
  },
  async get(n, path) {
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${fixture.workspaces[n].apiKey}` } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${body.slice(0, 300)}`);
    const parsed = JSON.parse(body) as { data?: unknown };
    if (Array.isArray(parsed.data)) pageRows.push(parsed.data.length);
    return parsed;
  },
};

const only = opts.only?.split(',');
const cases = CASES.filter((c) => !only || only.includes(c.id));

async function runCase(id: string): Promise<RoundFigures> {
  const c = cases.find((x) => x.id === id)!;
  pageRows = [];
  const times: number[] = [];
  for (let i = 0; i < WARMUP + requests; i++) {
    const started = performance.now();
    const undo = await c.run(ctx);
    const ms = performance.now() - started;
    if (undo) await undo();
    if (i >= WARMUP) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const figures = { p50: percentile(times, 50), p99: percentile(times, 99), pageRows: pageRows.length ? pageRows.reduce((a, b) => a + b, 0) / pageRows.length : undefined };
  log(`${id}: ${figures.p50.toFixed(1)}/${figures.p99.toFixed(1)}`);
  return figures;
}

// The purge: each call runs retention as of the moment that puts the cutoff one day further
// into the generated DAYS, so each deletes the next day's worth. Figures: ms per 1,000 rows
// deleted (the whole run; comparable across scales, where a day holds 100× the rows) and the
// p50/p99 of one batch statement.
async function purgeDay(): Promise<PurgeFigures> {
  const policy: RetentionPolicy = config.retention;
  // Days the generated data has beyond the window, minus those purged already.
  const day = fixture.purgedDays ?? 0;
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
  fixture.purgedDays = day + 1;
  if (opts.fixture) fs.writeFileSync(opts.fixture, JSON.stringify(fixture));
  log(`purge of day ${day}: ${deleted} rows (deliveries, attempts, events) in ${ms.toFixed(0)} ms, ${batches.length} batches`);
  return { p50: percentile(batches, 50), p99: percentile(batches, 99), perThousand: (ms / Math.max(1, deleted)) * 1000, ms, deleted, batchSize: policy.batchSize };
}

const send = (reply: Reply) => new Promise<void>((resolve, reject) => process.send!(reply, (err: Error | null) => (err ? reject(err) : resolve())));
const incoming = on(process, 'message') as AsyncIterable<[Request]>;
await send({ ready: cases.map((c) => ({ id: c.id, name: c.name })) });
for await (const [request] of incoming) {
  if ('done' in request) break;
  await send({ round: 'purge' in request ? await purgeDay() : await runCase(request.case) });
}

await listener.close(1000);
await db.close();
process.disconnect();
