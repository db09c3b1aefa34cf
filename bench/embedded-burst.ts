// `npm run bench:embedded`: the burst a new user tries first, on the embedded default (`npm start`:
// PGlite in the service's one process, the Temporal dev server), through the public API only.
//
//   npm run bench:embedded -- [--baseline REV] [--rounds 1] [--updates 3000] [--concurrency 20]
//     [--steady-ms 500] [--idle-seconds 20] [--window-seconds 60] [--drain-seconds 300] [--out bench/results]
//     [--mode patch|bulk] [--postgres]
//
// Each version (this checkout, and the baseline commit in a temporary worktree) is built and started
// as `npm start` does (scripts/build.ts, scripts/start.sh) on a fresh data directory; two workspaces
// are made with `npm run cli -- workspaces create` and given an API key each; each has one
// subscription to `ticket.updated` on a local HTTPS receiver. Then:
//   - idle: workspace B updates a ticket every `--steady-ms` for `--idle-seconds`;
//   - burst: workspace A sends `--updates` PATCH /tickets/{id}, `--concurrency` at a time, while B
//     goes on for `--window-seconds`;
//   - drain: up to `--drain-seconds` more for A's deliveries to arrive.
// With `--mode bulk`, A's burst is an import instead: `--updates` new tickets sent as bulk jobs
// (POST /tickets/bulk, 100 a call), at most 10 unfinished at once (the workspace's cap: a client
// that polls its oldest job before sending the next), A subscribed to ticket.created too.
// Measured: B's PATCH latency (the API's answers to the other workspace) and B's event-to-arrival
// (occurredAt → first arrival at its receiver), idle and during the burst; A's PATCHes/s; A's
// deliveries in the window and when the last arrived. The allowance is raised for the benchmark
// (DEFAULT_REQUESTS_PER_MINUTE) so that A's burst is a burst, not 10 requests/s.
// With `--postgres`, the same `npm start` runs on PostgreSQL instead of PGlite: DATABASE_URL's
// server, else a throwaway cluster started here (bench/bench-database.ts), a fresh database per
// version; the service runs its migrations at start as on PGlite.
// Writes bench/results/embedded-burst-latest.md (embedded-import-latest.md with --mode bulk;
// postgres-burst-latest.md or postgres-import-latest.md with --postgres; -split before -latest
// with --split).
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../scripts/free-port.ts';
import { createTestCa } from '../test/webhooks/receiver.ts';
import { addBaselineWorktree, currentCommit, type BaselineWorktree } from './baseline-worktree.ts';
import pg from 'pg';
import { benchDatabase, type BenchDatabase } from './bench-database.ts';
import { runBench, writeResults } from './lifecycle.ts';
import { pctsWithMissing as pcts, type Pcts } from './percentile.ts';
import { buildService, cliOf, createTickets, createWorkspaceWithKey, firstBoard, freshDatabase, serviceEnv, startServicePart, steadyPatches, stopChild } from './npm-start.ts';
import { readStages, stageCells, stageNames, stagesWith, type StageRow, type StageTimes } from './embedded-stages.ts';
import { processBetween, histogramsBetween, histogramRows, scrapeMetrics, type ProcessSummary, type SeriesSummary } from './service-metrics.ts';
import { startCaseReceiver, type CaseReceiver } from './webhook-case-receivers.ts';
import { median, shuffle, uptime } from './webhook-measure.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const { values: opts } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    updates: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '20' },
    'steady-ms': { type: 'string', default: '500' },
    'idle-seconds': { type: 'string', default: '20' },
    'window-seconds': { type: 'string', default: '60' },
    'drain-seconds': { type: 'string', default: '300' },
    'requests-per-minute': { type: 'string', default: '1000000' },
    out: { type: 'string', default: path.join(here, 'results') },
    mode: { type: 'string', default: 'patch' },
    postgres: { type: 'boolean', default: false },
    // With --postgres: the API and the worker in two processes (`npm start -- api`, `npm start --
    // worker`, the production shape's split) instead of one, on the API's dev server.
    split: { type: 'boolean', default: false },
  },
});
const POSTGRES = Boolean(opts.postgres);
const SPLIT = Boolean(opts.split);
if (SPLIT && !POSTGRES) throw new Error('--split needs --postgres: the embedded database serves one process');
/** The PostgreSQL server of `--postgres`, made in main(). */
let database: BenchDatabase | undefined;
const BULK = opts.mode === 'bulk';
/** The items of one bulk call, and the jobs a workspace may have unfinished (src/jobs/job.limits.ts). */
const BULK_ITEMS = 100;
const BULK_UNFINISHED = 10;
const num = (k: keyof typeof opts) => Number(opts[k]);
const log = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SideResult {
  bApiIdle: Pcts;
  bApiDuring: Pcts;
  bArrivalIdle: Pcts;
  bArrivalDuring: Pcts;
  aUpdates: number;
  aFailed: number;
  aThrottled: number;
  aSeconds: number;
  aDeliveredInWindow: number;
  aAllDeliveredAfter: number | null;
  aDelivered: number;
  /** Where B's event-to-arrival went during the burst (the service's own timestamps). */
  bStagesDuring?: StageTimes;
  /** The relay's histograms over B's window during the burst (the service's /metrics). */
  relayDuring?: SeriesSummary[];
  /** Each service process (`all`, or `api` and `worker`) over B's idle phase and its window during the burst. */
  processes?: { part: string; idle?: ProcessSummary; during?: ProcessSummary }[];
}

const services: ChildProcess[] = [];
let worktree: BaselineWorktree | undefined;
const receivers: CaseReceiver[] = [];
const tmpDirs: string[] = [];

async function stopService() {
  await Promise.all(services.splice(0).reverse().map(stopChild));
}

async function cleanup() {
  await stopService();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  worktree?.remove();
  worktree = undefined;
  for (const d of tmpDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  database?.cluster?.stop();
  database = undefined;
}

async function runSide(tree: string, receiver: CaseReceiver, caFile: string, tag: string): Promise<SideResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-embedded-'));
  tmpDirs.push(dataDir);
  const { env, port } = await serviceEnv(dataDir, caFile, database ? await freshDatabase(database.url, `bench_${tag}_${Date.now()}`) : undefined, {
    DEFAULT_REQUESTS_PER_MINUTE: String(opts['requests-per-minute']),
  });
  log(`${tag}: building`);
  buildService(tree, env);
  log(`${tag}: starting the service (${database ? 'PostgreSQL' : 'embedded default'})`);
  const start = async (part: string, partEnv: NodeJS.ProcessEnv) => void services.push(await startServicePart(tree, part, partEnv, tag));
  // Where each process answers /metrics (the worker part on a port of its own).
  const metricsAt: Record<string, string> = {};
  if (SPLIT) {
    await start('api', env);
    const workerMetrics = await freePort();
    await start('worker', { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${env.TEMPORAL_PORT}`, METRICS_PORT: String(workerMetrics) });
    metricsAt.api = `http://127.0.0.1:${port}`;
    metricsAt.worker = `http://127.0.0.1:${workerMetrics}`;
  } else {
    await start('all', env);
    metricsAt.all = `http://127.0.0.1:${port}`;
  }
  /** Each process's /metrics at once (the scrape also resets prom-client's event-loop monitor). */
  const scrapeAll = async () => Object.fromEntries(await Promise.all(Object.entries(metricsAt).map(async ([part, origin]) => [part, await scrapeMetrics(origin)] as const)));
  const cli = cliOf(tree, env);
  const base = `http://127.0.0.1:${port}/public/v1`;
  const setUp = async (name: string, hookPath: string, tickets: number, events = ['ticket.updated']) => {
    const { api } = createWorkspaceWithKey(cli, base, name, tag, ['tickets:read', 'tickets:write', 'boards:read', 'webhooks:manage']);
    const board = await firstBoard(api);
    const ids = await createTickets(api, board, tickets);
    await api.ok('POST', '/webhooks', { url: receiver.origin + hookPath, events });
    return { api, ids, board: board.board, fields: board.fields };
  };
  const concurrency = num('concurrency');
  const a = await setUp('a', `/bulk-${tag}`, BULK ? 0 : concurrency, BULK ? ['ticket.updated', 'ticket.created'] : ['ticket.updated']);
  const b = await setUp('b', `/steady-${tag}`, 1);
  const bulk = receiver.arrivals(`/bulk-${tag}`);
  const steady = receiver.arrivals(`/steady-${tag}`);

  /** B's updates, one every --steady-ms for `seconds`: their API latencies and the time span they cover. */
  let counter = 0;
  const steadyPhase = (seconds: number) => steadyPatches(b.api, b.ids[0], num('steady-ms'), seconds, () => `Steady ${counter++}`);
  /** B's arrivals of events that occurred within [from, to], and how many of its updates have none. */
  const arrivalsWithin = async (phase: { from: number; to: number; sent: number; failed: number }) => {
    const ok = phase.sent - phase.failed;
    const inPhase = () => [...steady.values()].filter((x) => x.occurredAt >= phase.from && x.occurredAt <= phase.to);
    const until = Date.now() + 120_000;
    while (inPhase().length < ok && Date.now() < until) await sleep(200);
    const got = inPhase();
    return pcts(
      got.map((x) => x.firstAt - x.occurredAt),
      Math.max(0, ok - got.length),
    );
  };

  log(`${tag}: idle, B updates a ticket every ${num('steady-ms')} ms for ${num('idle-seconds')} s`);
  const processesAtIdle = await scrapeAll();
  const idle = await steadyPhase(num('idle-seconds'));
  const processesAfterIdle = await scrapeAll();
  const bArrivalIdle = await arrivalsWithin(idle);

  log(`${tag}: burst, A sends ${num('updates')} updates ${concurrency} at a time; B goes on for ${num('window-seconds')} s`);
  let next = 0;
  let aFailed = 0;
  let aThrottled = 0;
  const burstStart = Date.now();
  /** The import: bulk jobs of BULK_ITEMS creations, at most BULK_UNFINISHED unfinished, until every job has finished. */
  const importAll = async () => {
    const unfinished: string[] = [];
    const waitForOldest = async () => {
      const id = unfinished.shift()!;
      for (;;) {
        const job = await a.api.call<{ status: string; failed?: number }>('GET', `/jobs/${id}`);
        if (job.status !== 200) throw new Error(`GET /jobs/${id}: ${job.status}`);
        if (job.json.status === 'completed' || job.json.status === 'failed') {
          aFailed += job.json.failed ?? 0;
          return;
        }
        await sleep(1000);
      }
    };
    for (let sent = 0; sent < num('updates'); sent += BULK_ITEMS) {
      if (unfinished.length >= BULK_UNFINISHED) await waitForOldest();
      const items = Array.from({ length: Math.min(BULK_ITEMS, num('updates') - sent) }, (_, i) => ({
        create: { boardId: a.board.id, subject: `Imported ${sent + i}`, requesterEmail: 'someone@example.com', fields: a.fields },
      }));
      let r = await a.api.call<{ id: string }>('POST', '/tickets/bulk', { items });
      while (r.status === 429) {
        aThrottled += 1;
        await sleep(1000 * Math.max(1, r.retryAfter));
        r = await a.api.call<{ id: string }>('POST', '/tickets/bulk', { items });
      }
      if (r.status !== 202) throw new Error(`POST /tickets/bulk: ${r.status} ${JSON.stringify(r.json)}`);
      unfinished.push(r.json.id);
    }
    while (unfinished.length) await waitForOldest();
    return (Date.now() - burstStart) / 1000;
  };
  const burst = BULK ? importAll() : Promise.all(
    a.ids.map(async (id) => {
      while (next < num('updates')) {
        next += 1;
        const patch = () => a.api.call('PATCH', `/tickets/${id}`, { subject: `Burst ${next}` }).catch(() => ({ status: 0, retryAfter: 1 }));
        let r = await patch();
        // Beyond the allowance (429): wait as the answer says, as a well-behaved client does, and send it again.
        while (r.status === 429) {
          aThrottled += 1;
          await sleep(1000 * Math.max(1, r.retryAfter));
          r = await patch();
        }
        if (r.status !== 200) aFailed += 1;
      }
    }),
  ).then(() => (Date.now() - burstStart) / 1000);
  // The API's process (the one process unless split) holds the relay's histograms that count.
  const apiPart = SPLIT ? 'api' : 'all';
  const windowStart = await scrapeAll();
  const during = await steadyPhase(num('window-seconds'));
  const windowEnd = await scrapeAll();
  const relayDuring = histogramsBetween(windowStart[apiPart], windowEnd[apiPart]);
  const processes = Object.keys(metricsAt).map((part) => ({
    part,
    idle: processBetween(processesAtIdle[part], processesAfterIdle[part]),
    during: processBetween(windowStart[part], windowEnd[part]),
  }));
  const aDeliveredInWindow = bulk.size;
  const bArrivalDuring = await arrivalsWithin(during);
  const aSeconds = await burst;
  // A's deliveries: one per update, or per imported ticket (ticket.created; imports make no ticket.updated).
  const aExpected = num('updates') - aFailed;
  log(`${tag}: A's updates took ${aSeconds.toFixed(1)} s; waiting up to ${num('drain-seconds')} s for its deliveries`);
  const drainUntil = Date.now() + num('drain-seconds') * 1000;
  while (bulk.size < aExpected && Date.now() < drainUntil) await sleep(500);
  const lastArrival = Math.max(...[...bulk.values()].map((x) => x.firstAt));
  await stopService();
  // A breakdown, not a figure of the run: should it fail, the run's figures still stand.
  const stagesOf = env.DATABASE_URL ? stagesOnPostgres(env.DATABASE_URL) : readStages;
  const bStagesDuring = await stagesOf(dataDir, `/steady-${tag}`, during.from, during.to, steady).catch((err) => {
    log(`${tag}: could not read the stages: ${err}`);
    return undefined;
  });
  return {
    bStagesDuring,
    relayDuring,
    processes,
    bApiIdle: pcts(idle.apiMs, idle.failed),
    bApiDuring: pcts(during.apiMs, during.failed),
    bArrivalIdle,
    bArrivalDuring,
    aUpdates: num('updates'),
    aFailed,
    aThrottled,
    aSeconds,
    aDeliveredInWindow,
    aDelivered: bulk.size,
    aAllDeliveredAfter: bulk.size >= aExpected ? (lastArrival - burstStart) / 1000 : null,
  };
}

/** readStages, from the version's PostgreSQL database instead of its data directory. */
const stagesOnPostgres =
  (url: string): typeof readStages =>
  async (_dataDir, hookPath, from, to, arrivals) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await stagesWith(async (text, params) => (await client.query<StageRow>(text, params)).rows, hookPath, from, to, arrivals);
    } finally {
      await client.end();
    }
  };

async function main() {
  const loadBefore = uptime();
  if (POSTGRES) database = await benchDatabase(log);
  const tls = createTestCa();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-embedded-ca-'));
  tmpDirs.push(tmp);
  const caFile = path.join(tmp, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca);
  const receiver = await startCaseReceiver(tls);
  receivers.push(receiver);
  const trees: Record<string, string> = { current: root };
  if (opts.baseline) {
    worktree = addBaselineWorktree(root, String(opts.baseline));
    trees.baseline = worktree.dir;
  }
  const results: Record<string, SideResult[]> = { current: [], baseline: [] };
  for (let r = 0; r < num('rounds'); r++) {
    for (const side of shuffle(Object.keys(trees))) {
      log(`Round ${r + 1}, ${side}`);
      results[side].push(await runSide(trees[side], receiver, caFile, `${side}${r}`));
    }
  }
  const baselineCommit = worktree?.commit;
  const loadAfter = uptime();
  // cleanup() stops the cluster and forgets it: what the report says of it is kept first.
  const ranOn = database;
  await cleanup();

  const { commit, dirty } = currentCommit(root);
  const where = ranOn ? `PostgreSQL ${ranOn.version} (${ranOn.note}), a fresh database per version` : 'PGlite in the service\'s process';
  const fmt = (x: number | null) => (x === null ? 'n/a' : x.toLocaleString('en-US'));
  const med = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : Math.round(median(xs as number[])));
  const pair = (ps: Pcts[]) => `${fmt(med(ps.map((p) => p.p50)))} / ${fmt(med(ps.map((p) => p.p95)))}`;
  const within = (idle: Pcts[], during: Pcts[], rule: (i: number) => number) => {
    const i = med(idle.map((p) => p.p95));
    const d = med(during.map((p) => p.p95));
    return i !== null && d !== null && d <= rule(i) ? '**pass**' : '**FAIL**';
  };
  const lines = [
    `# ${ranOn ? '`npm start` on PostgreSQL' : 'Embedded default'}: one workspace's ${BULK ? 'import' : 'burst'} of ${num('updates').toLocaleString('en-US')} ${BULK ? 'tickets (bulk jobs)' : 'updates'} against another's trickle (${new Date().toISOString().replace(/\.\d+Z$/, 'Z')})`,
    '',
    `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores; Node ${process.version}. Current \`${commit}\`${dirty ? ' with uncommitted changes' : ''}${baselineCommit ? `, baseline \`${baselineCommit}\`` : ''}. ${num('rounds')} round(s), versions in random order; medians over rounds.`,
    `Each version as \`npm start\` runs it (built bundle, ${where}, the Temporal dev server${SPLIT ? '; the API and the worker in two processes, `npm start -- api` and `npm start -- worker`' : ''}), on a fresh data directory, driven through the public API only. ${BULK ? `Workspace A imports ${num('updates')} new tickets as bulk jobs (POST /tickets/bulk, ${BULK_ITEMS} a call, at most ${BULK_UNFINISHED} unfinished, polling the oldest before sending more; subscribed to ticket.created and ticket.updated);` : `Workspace A sends ${num('updates')} PATCH /tickets/{id}, ${num('concurrency')} at a time, to ${num('concurrency')} tickets;`} workspace B updates one ticket every ${num('steady-ms')} ms: ${num('idle-seconds')} s idle first, then ${num('window-seconds')} s from the start of A's burst. Each workspace has one subscription to ticket.updated on a local HTTPS receiver (answers 204 at once). Allowance ${Number(opts['requests-per-minute']).toLocaleString('en-US')} requests/min per key (DEFAULT_REQUESTS_PER_MINUTE; the product's default is 600); A waits out any 429 as its Retry-After says.`,
    `Load before: \`${loadBefore}\`; after: \`${loadAfter}\`. n/a: the percentile falls on an update that failed or whose event had not arrived 120 s after its phase.`,
    '',
    `| Version | B PATCH idle p50 / p95 ms | B PATCH during p50 / p95 ms | within 2 × idle p95 | B event-to-arrival idle p50 / p95 ms | during p50 / p95 ms | ≤ 2 × idle p95 + 250 ms | A ${BULK ? 'tickets imported' : 'PATCHes'}/s (failed, 429s) | A delivered in the window | A all delivered after |`,
    '|---|--:|--:|---|--:|--:|---|--:|--:|--:|',
  ];
  for (const side of Object.keys(trees)) {
    const xs = results[side];
    lines.push(
      `| ${side} | ${pair(xs.map((x) => x.bApiIdle))} | ${pair(xs.map((x) => x.bApiDuring))} | ${within(
        xs.map((x) => x.bApiIdle),
        xs.map((x) => x.bApiDuring),
        (i) => 2 * i,
      )} | ${pair(xs.map((x) => x.bArrivalIdle))} | ${pair(xs.map((x) => x.bArrivalDuring))} | ${within(
        xs.map((x) => x.bArrivalIdle),
        xs.map((x) => x.bArrivalDuring),
        (i) => 2 * i + 250,
      )} | ${fmt(med(xs.map((x) => x.aUpdates / x.aSeconds)))} (${xs.reduce((s, x) => s + x.aFailed, 0)}, ${xs.reduce((s, x) => s + x.aThrottled, 0)}) | ${fmt(med(xs.map((x) => x.aDeliveredInWindow)))} of ${fmt(xs[0].aUpdates)} | ${xs.every((x) => x.aAllDeliveredAfter !== null) ? `${fmt(med(xs.map((x) => x.aAllDeliveredAfter)))} s` : `not within ${num('drain-seconds')} s more (${fmt(med(xs.map((x) => x.aDelivered)))} arrived)`} |`,
    );
  }
  lines.push(
    '',
    `Where B's event-to-arrival went during the burst (the service's own timestamps, read from its ${ranOn ? 'database' : 'data directory'} after the run: bench/embedded-stages.ts), p50 / p95 ms of each step, the first round:`,
    '',
    `| Version | events | ${stageNames.join(' | ')} |`,
    `|---|--:|${stageNames.map(() => '--:').join('|')}|`,
  );
  for (const side of Object.keys(trees)) {
    const xs = results[side];
    // The first round's (a median of percentiles per step would not add up to anything).
    lines.push(`| ${side} | ${fmt(xs[0]?.bStagesDuring?.n ?? null)} | ${stageCells(xs[0]?.bStagesDuring).join(' | ')} |`);
  }
  lines.push(
    '',
    `The outbox relay and the database pool during B's window (the ${SPLIT ? 'API process\'s' : 'service\'s'} /metrics, src/metrics/metrics.ts, read at the window's start and end; the first round): how long a relay batch's steps took, how long events waited from their occurrence until a relay claimed them, and (PostgreSQL) how long each kind of work waited for a pooled connection. p95 is the bound of the Prometheus bucket that holds it.`,
    '',
    '| Version, series | batches, events or waits | mean ms | p95 ≤ ms | over 10 ms |',
    '|---|--:|--:|--:|--:|',
  );
  for (const side of Object.keys(trees)) {
    for (const row of histogramRows(results[side][0]?.relayDuring ?? [])) lines.push(row.replace('| `', `| ${side}, \``));
  }
  lines.push(
    '',
    "Each service process in B's idle phase and in its window during the burst (prom-client's default metrics on each process's /metrics: the event loop's delay, sampled every 10 ms, and the CPU the process used; the first round):",
    '',
    '| Version, process | loop delay idle mean / p99 / max ms | during mean / p99 / max ms | CPU s idle | CPU s during |',
    '|---|--:|--:|--:|--:|',
  );
  const loop = (x?: ProcessSummary) => (x ? `${x.loopMeanMs} / ${x.loopP99Ms} / ${x.loopMaxMs}` : 'n/a');
  for (const side of Object.keys(trees)) {
    for (const p of results[side][0]?.processes ?? []) lines.push(`| ${side}, ${p.part} | ${loop(p.idle)} | ${loop(p.during)} | ${p.idle?.cpuSeconds ?? 'n/a'} | ${p.during?.cpuSeconds ?? 'n/a'} |`);
  }
  lines.push('');
  writeResults(path.join(String(opts.out), `${ranOn ? 'postgres' : 'embedded'}-${BULK ? 'import' : 'burst'}${SPLIT ? '-split' : ''}-latest.md`), lines.join('\n'), log);
  log(`Raw figures: ${JSON.stringify({ commit, baseline: baselineCommit, results })}`);
}

runBench(main, cleanup, 3 * 60 * 60_000);
