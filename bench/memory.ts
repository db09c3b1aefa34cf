// `npm run bench:memory`: each part of the service under load plus the hostile set, for its heap
// limit. The parts run as production runs them: the bundle built by scripts/build.ts on plain
// node with the flags and environment of `npm start -- <part>` (scripts/start.sh), plus
// --expose-gc and bench/memory-probe.mjs, which report heap figures to a file.
//
//   npm run bench:memory [-- --minutes 10 --roles all,api,worker]
//
// - all: `dist/main.js all` on an embedded PGlite in a temp DATA_DIR, with its own Temporal dev server.
// - api + worker: `dist/main.js api` and `dist/main.js worker` on a throwaway PostgreSQL
//   (scripts/throwaway-postgres.ts) and one Temporal dev server (src/temporal/dev-server.ts); both start
//   whenever either is asked for (the worker's work comes through the API).
// Load on each API for the whole run: autocannon mixing GET /tickets, POST /tickets, GET /boards
// and GET /me, beside GET /kb/articles?limit=100 over 90 KB articles; every ticket created is a
// webhook delivery to a local HTTPS receiver (bench/webhook-receivers.ts). Every minute, the
// hostile set (bench/hostile.ts). Reported per part: peak RSS (VmHWM), peak heap used, heap used
// after a full GC at the end, answers by status class, and whether it survived. A run of 10
// minutes or more writes bench/results/memory-latest.md.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { buildService, buildWorkflowBundle, distDir } from '../scripts/build.ts';
import { createTestCa } from '../test/webhooks/receiver.ts';
import type { DevServer } from '../src/temporal/dev-server.ts';
import { HOSTILE_REQUESTS, sendHostile, type StatusClass } from './hostile.ts';
import type { MemoryFixture } from './memory-seed.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../scripts/throwaway-postgres.ts';
import { freePort } from '../scripts/free-port.ts';
import { heapLimits, productionNode, type Role } from './production.ts';
import { startBenchReceivers, type BenchReceiver } from './webhook-receivers.ts';
import { newSecretKeys } from '../src/webhooks/message/secret-box.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = path.join(here, 'results', 'memory-latest.md');
const PROBE = path.join(here, 'memory-probe.mjs');

const { values: opts } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, roles: { type: 'string', default: 'all,api,worker' } } });
const MINUTES = Number(opts.minutes);
const ROLES = opts.roles.split(',').map((r) => r.trim()) as Role[];
if (!ROLES.length || ROLES.some((r) => !['all', 'api', 'worker'].includes(r))) throw new Error(`--roles takes all, api and worker (got ${opts.roles})`);
if (!(MINUTES > 0)) throw new Error('--minutes must be positive');
const SPLIT = ROLES.includes('api') || ROLES.includes('worker');
const HOSTILE_EVERY_MS = 60_000;
/** Per API: the mix, then the large lists (requests per second over all connections). */
const MIX_RATE = 150;
const KB_RATE = 2;

const log = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-memory-'));

type Classes = Record<StatusClass, number>;
const noClasses = (): Classes => ({ '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, 'no answer': 0 });

interface Part {
  role: Role;
  child: ChildProcess;
  probeFile: string;
  peakRss: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null; afterSeconds: number };
  /** Answers to the mix, to the large KB lists and to the hostile set. */
  mix: Classes;
  lists: Classes;
  hostile: Classes;
}

const parts: Part[] = [];
let cluster: ThrowawayPostgres | undefined;
let devServer: DevServer | undefined;
let receivers: BenchReceiver[] = [];
const started = Date.now();

async function cleanup() {
  for (const p of parts) if (!p.exit) p.child.kill('SIGTERM');
  await Promise.all(parts.map((p) => (p.exit ? Promise.resolve() : new Promise((r) => p.child.once('exit', r)))));
  await devServer?.stop().catch(() => undefined);
  cluster?.stop();
  await Promise.all(receivers.map((r) => r.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
}

function baseEnv(caFile: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', WEBHOOK_SECRET_KEYS: newSecretKeys(), LOG_LEVEL: 'warn', SEED_DEMO: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', NODE_EXTRA_CA_CERTS: caFile };
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'DATA_DIR', 'PORT', 'REDIS_URL']) delete env[name];
  return env;
}

/** Seeds the database the env names (bench/memory-seed.ts, in a child process that then exits). */
async function seed(env: NodeJS.ProcessEnv, receiverUrl: string): Promise<MemoryFixture> {
  const child = fork(path.join(here, 'memory-seed.ts'), [receiverUrl], { env, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const fixture = await new Promise<MemoryFixture>((resolve, reject) => {
    child.once('message', (m) => resolve(m as MemoryFixture));
    child.once('exit', (code) => reject(new Error(`seed exited (${code}) before sending its fixture`)));
  });
  await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(undefined)));
  return fixture;
}

/** Starts a part as `npm start -- <role>` runs it, plus the probe. */
function startPart(role: Role, env: NodeJS.ProcessEnv): Part {
  const production = productionNode(role);
  const probeFile = path.join(tmp, `probe-${role}.jsonl`);
  const child = spawn(process.execPath, [...production.flags, '--expose-gc', '--import', PROBE, path.join(distDir, 'main.js'), role], {
    env: { ...env, ...production.env, MEMORY_PROBE_FILE: probeFile },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const part: Part = { role, child, probeFile, peakRss: 0, mix: noClasses(), lists: noClasses(), hostile: noClasses() };
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  child.once('exit', (code, signal) => {
    part.exit = { code, signal, afterSeconds: Math.round((Date.now() - started) / 1000) };
    if (!stopping) log(`${role} exited (code ${code}, signal ${signal}); its last output:\n${stderr.slice(-1500)}`);
  });
  parts.push(part);
  return part;
}
let stopping = false;

async function waitHealthy(part: Part, origin: string) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (part.exit) throw new Error(`${part.role} exited during start-up`);
    const ok = await fetch(`${origin}/healthz`).then((r) => r.ok).catch(() => false);
    if (ok) return;
    await sleep(500);
  }
  throw new Error(`${part.role} did not answer /healthz within 180 s`);
}

/** The worker has no port: started once its probe has written (the process runs) and a few seconds passed. */
async function waitRunning(part: Part) {
  const deadline = Date.now() + 120_000;
  while (!fs.existsSync(part.probeFile)) {
    if (part.exit) throw new Error(`${part.role} exited during start-up`);
    if (Date.now() > deadline) throw new Error(`${part.role} did not start within 120 s`);
    await sleep(500);
  }
}

function statusOf(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface ProbeLine {
  peakHeapUsed: number;
  heapUsedAfterGc?: number;
}
const probeLines = (p: Part): ProbeLine[] =>
  fs.existsSync(p.probeFile) ? fs.readFileSync(p.probeFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as ProbeLine) : [];

function loadRun(origin: string, fixture: MemoryFixture, seconds: number): Promise<Result>[] {
  const headers = { authorization: `Bearer ${fixture.apiKey}`, 'content-type': 'application/json' };
  const ticket = JSON.stringify({
    boardId: fixture.boardId,
    subject: 'Memory benchmark ticket',
    description: 'Created under load',
    requesterEmail: 'load@example.test',
    fields: [{ fieldId: fixture.productFieldId, value: 'Web' }],
  });
  const mix = autocannon({
    url: origin,
    connections: 8,
    duration: seconds,
    overallRate: MIX_RATE,
    timeout: 30,
    requests: [
      { method: 'GET', path: '/public/v1/tickets', headers },
      { method: 'POST', path: '/public/v1/tickets', headers, body: ticket },
      { method: 'GET', path: '/public/v1/boards', headers },
      { method: 'GET', path: '/public/v1/me', headers },
    ],
  });
  const lists = autocannon({ url: `${origin}/public/v1/kb/articles?limit=100`, connections: 2, duration: seconds, overallRate: KB_RATE, timeout: 30, headers });
  return [mix, lists];
}

function count(into: Classes, r: Result) {
  into['2xx'] += r['2xx'];
  into['3xx'] += r['3xx'];
  into['4xx'] += r['4xx'];
  into['5xx'] += r['5xx'];
  into['no answer'] += r.errors + r.timeouts;
}

const mb = (bytes: number | undefined) => (bytes === undefined || !Number.isFinite(bytes) ? '–' : (bytes / 1024 / 1024).toFixed(0));
const classes = (c: Classes) => (Object.entries(c) as [StatusClass, number][]).filter(([, n]) => n).map(([k, n]) => `${k} ${n.toLocaleString('en-US')}`).join(', ') || '–';

async function main() {
  log('Building dist/ (scripts/build.ts)…');
  await Promise.all([buildService(), buildWorkflowBundle()]);

  const tls = createTestCa();
  const caFile = path.join(tmp, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca);
  receivers = await startBenchReceivers(1, tls);
  const receiverUrl = `${receivers[0].origin}/webhooks/memory`;
  const env = baseEnv(caFile);
  const targets: { part: Part; origin: string; fixture: MemoryFixture }[] = [];

  if (ROLES.includes('all')) {
    const dataDir = path.join(tmp, 'all');
    const allEnv = { ...env, DATA_DIR: dataDir };
    log('all: seeding the embedded PGlite…');
    const fixture = await seed(allEnv, receiverUrl);
    const port = await freePort();
    const part = startPart('all', { ...allEnv, PORT: String(port), TEMPORAL_PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()) });
    const origin = `http://127.0.0.1:${port}`;
    await waitHealthy(part, origin);
    targets.push({ part, origin, fixture });
    log(`all: running on ${origin}`);
  }
  if (SPLIT) {
    log('api + worker: throwaway PostgreSQL and a Temporal dev server…');
    cluster = await startThrowawayPostgres({ database: 'bench' });
    const { startDevServer } = await import('../src/temporal/dev-server.ts');
    devServer = await startDevServer({ dbFile: path.join(tmp, 'temporal.sqlite'), port: await freePort() });
    const splitEnv = { ...env, DATABASE_URL: cluster.url, TEMPORAL_ADDRESS: devServer.address, TEMPORAL_NAMESPACE: devServer.namespace };
    const fixture = await seed(splitEnv, receiverUrl);
    const port = await freePort();
    const api = startPart('api', { ...splitEnv, PORT: String(port) });
    const worker = startPart('worker', splitEnv);
    const origin = `http://127.0.0.1:${port}`;
    await Promise.all([waitHealthy(api, origin), waitRunning(worker)]);
    targets.push({ part: api, origin, fixture });
    log(`api on ${origin}, worker running`);
  }

  const seconds = Math.round(MINUTES * 60);
  log(`Load for ${MINUTES} min on ${targets.map((t) => t.part.role).join(' and ')}; the hostile set every ${HOSTILE_EVERY_MS / 1000} s…`);
  const sampler = setInterval(() => {
    for (const p of parts) if (!p.exit) p.peakRss = Math.max(p.peakRss, statusOf(p.child.pid!, 'VmHWM'));
  }, 1_000);
  const loads = targets.map((t) => ({ target: t, runs: loadRun(t.origin, t.fixture, seconds) }));
  const hostileResults = new Map<string, Classes>();
  const hostileUntil = Date.now() + seconds * 1000 - 30_000;
  const hostile = (async () => {
    await sleep(30_000);
    for (let round = 1; Date.now() < hostileUntil; round++) {
      const roundStart = Date.now();
      for (const request of HOSTILE_REQUESTS) {
        await Promise.all(
          targets.map(async (t) => {
            if (t.part.exit) return;
            const got = await sendHostile(t.origin, t.fixture.apiKey, request);
            const key = `${request.name}\u0000${t.part.role}`;
            const into = hostileResults.get(key) ?? noClasses();
            for (const c of got) {
                into[c]++;
                t.part.hostile[c]++;
              }
            hostileResults.set(key, into);
          }),
        );
      }
      log(`hostile round ${round} done in ${((Date.now() - roundStart) / 1000).toFixed(0)} s; alive: ${parts.filter((p) => !p.exit).map((p) => p.role).join(', ') || 'none'}`);
      await sleep(Math.max(0, HOSTILE_EVERY_MS - (Date.now() - roundStart)));
    }
  })();
  for (const { target, runs } of loads) {
    const [mix, lists] = await Promise.all(runs);
    count(target.part.mix, mix);
    count(target.part.lists, lists);
  }
  await hostile;

  log('Load over; 10 s idle, then a full GC in each part…');
  await sleep(10_000);
  for (const p of parts) if (!p.exit) p.child.kill('SIGUSR2');
  await sleep(5_000);
  clearInterval(sampler);
  stopping = true;

  const limits = heapLimits();
  const rows = parts
    .filter((p) => ROLES.includes(p.role))
    .map((p) => {
      const lines = probeLines(p);
      const peakHeap = Math.max(0, ...lines.map((l) => l.peakHeapUsed));
      const afterGc = lines.findLast((l) => l.heapUsedAfterGc !== undefined)?.heapUsedAfterGc;
      const survived = p.exit ? `**no**: exit code ${p.exit.code ?? '–'}, signal ${p.exit.signal ?? '–'} after ${p.exit.afterSeconds} s` : 'yes';
      const share = `${((peakHeap / (limits[p.role] * 1024 * 1024)) * 100).toFixed(0)}%`;
      const answers = (c: Classes) => (p.role === 'worker' ? '–' : classes(c));
      return `| ${p.role} | ${limits[p.role]} | ${mb(p.peakRss)} | ${mb(peakHeap)} (${share}) | ${mb(afterGc)} | ${answers(p.mix)} | ${answers(p.lists)} | ${answers(p.hostile)} | ${survived} |`;
    });
  const hostileRows = HOSTILE_REQUESTS.map((r) => `| ${r.name} | ${targets.map((t) => classes(hostileResults.get(`${r.name}\u0000${t.part.role}`) ?? noClasses())).join(' | ')} |`);
  const delivered = receivers[0].total();
  const report = [
    `# Memory benchmark (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    `\`npm run bench:memory -- --minutes ${MINUTES} --roles ${ROLES.join(',')}\` on ${os.cpus().length} cores, Node ${process.version}. Each part ran as \`npm start -- <part>\` runs it (scripts/start.sh: \`${productionNode('all').flags.join(' ').replace(/=\d+/, '=<limit>')}\`, \`${Object.entries(productionNode('all').env).map(([k, v]) => `${k}=${v}`).join(' ')}\`), plus \`--expose-gc\` and the probe.`,
    `Load per API for ${MINUTES} min: ${MIX_RATE} req/s mixing GET /tickets, POST /tickets, GET /boards, GET /me (8 connections) and ${KB_RATE} req/s of GET /kb/articles?limit=100 over 90 KB articles (2 connections); each ticket created went to a webhook receiver (${delivered.toLocaleString('en-US')} deliveries received in all). The hostile set (bench/hostile.ts) every ${HOSTILE_EVERY_MS / 1000} s from 30 s on.`,
    '',
    '| Part | heap limit MB | peak RSS MB | peak heap used MB (of limit) | heap used after GC at the end MB | mix answers | KB list answers | hostile answers | survived |',
    '|---|--:|--:|--:|--:|---|---|---|---|',
    ...rows,
    '',
    `Hostile answers, all rounds (${targets.map((t) => t.part.role).join(' | ')}):`,
    '',
    `| Request | ${targets.map((t) => t.part.role).join(' | ')} |`,
    `|---|${targets.map(() => '---').join('|')}|`,
    ...hostileRows,
    '',
  ].join('\n');
  console.log(`\n${report}`);
  if (MINUTES >= 10) {
    fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
    fs.writeFileSync(RESULTS_FILE, report);
    log(`wrote ${path.relative(process.cwd(), RESULTS_FILE)}`);
  }
}

// Every step is bounded (start-ups, autocannon's duration, 60 s per hostile request); this bounds the whole run too.
const watchdog = setTimeout(() => {
  log('the run took far longer than it should; stopping');
  void cleanup().finally(() => process.exit(1));
}, (MINUTES * 60 + 900) * 1000);
watchdog.unref();

try {
  await main();
} finally {
  stopping = true;
  await cleanup();
}
