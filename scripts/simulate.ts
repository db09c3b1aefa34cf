// `npm run simulate -- [--seeds 5000] [--from 1] [--seed 123] [--postgres] [--steps 40] [--chunk 250] [--verbose]`
// The delivery engine's simulation in its long form (test/webhooks/simulation/: the same world,
// schedules, harness and invariants as the few dozen seeds of `npm test`). Seeds run in child
// processes of `--chunk` seeds each, every child on a fresh database (a copy of the migrated
// PGlite directory, or with --postgres a new database on DATABASE_URL's server, or on a
// throwaway PostgreSQL when DATABASE_URL is unset) with its own time-skipping Temporal server and
// worker. Prints each failing seed (its broken invariants, the command that replays it, its step
// log), a dot per passing seed, and a summary; exits 1 when a seed failed. On a shared machine,
// count it as a test run (not beside a benchmark).
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SeedResult } from '../test/webhooks/simulation/harness.ts';

const { values: opts } = parseArgs({
  options: {
    seeds: { type: 'string', default: '100' },
    from: { type: 'string', default: '1' },
    seed: { type: 'string' },
    postgres: { type: 'boolean', default: false },
    steps: { type: 'string', default: '40' },
    chunk: { type: 'string', default: '250' },
    verbose: { type: 'boolean', default: false },
    child: { type: 'boolean', default: false },
  },
});

const RESULT = 'SIM_RESULT ';
/** A seed still running after this long (real ms) hangs: reported as a failure of its own. */
const SEED_BUDGET_MS = 240_000;

if (opts.child) await child();
else await parent();

/** Runs seeds [from, from + seeds) on the database the environment names, one JSON line per seed. */
async function child() {
  const { startSimulationStack } = await import('../test/webhooks/simulation/stack.ts');
  const { runSeed } = await import('../test/webhooks/simulation/harness.ts');
  const stack = await startSimulationStack();
  try {
    const from = Number(opts.from);
    for (let seed = from; seed < from + Number(opts.seeds); seed++) {
      let result;
      try {
        // A seed that hangs (not a failing invariant: something that never ends) is reported and
        // ends this process; the parent runs the chunk's other seeds in a new one.
        const hung = sleep(SEED_BUDGET_MS).then(() => 'hung' as const);
        result = await Promise.race([runSeed(stack, seed, { steps: Number(opts.steps) }), hung]);
        if (result === 'hung') {
          const violation = { invariant: 'the seed ends', detail: `still running after ${SEED_BUDGET_MS / 1000} s (SIM_TRACE=1 npm run simulate -- --seed ${seed} shows where)` };
          process.stdout.write(`${RESULT}${JSON.stringify({ seed, database: stack.database, violations: [violation], log: [], stats: {}, ms: SEED_BUDGET_MS })}\n`);
          process.exit(3);
        }
      } catch (err) {
        result = { seed, database: stack.database, violations: [{ invariant: 'the seed runs', detail: String((err as Error)?.stack ?? err) }], log: [], stats: {}, ms: 0 };
      }
      process.stdout.write(`${RESULT}${JSON.stringify(result)}\n`);
    }
  } finally {
    await stack.stop();
  }
  process.exit(0);
}

async function parent() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { formatFailure, formatPass } = await import('../test/webhooks/simulation/report.ts');
  const seeds = opts.seed ? [Number(opts.seed)] : Array.from({ length: Number(opts.seeds) }, (_, i) => Number(opts.from) + i);
  const database = opts.postgres ? 'postgres' : 'pglite';

  // What the tests provision (the time-skipping server's binary), as test/support/global-setup.ts gets it.
  const provision = spawnSync('bash', [path.join(root, 'scripts/provision.sh'), '--for', 'test'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (provision.status !== 0) throw new Error('scripts/provision.sh --for test failed');
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', NODE_ENV: 'test' };
  for (const line of provision.stdout.split('\n')) {
    const found = /^([A-Z_]+)=(.*)$/.exec(line);
    if (found) env[found[1]] = found[2];
  }
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simulate-'));
  env.TEST_RUN_DIR = runDir;

  let stopPostgres: (() => void) | undefined;
  let baseUrl: string | undefined;
  if (database === 'postgres') {
    baseUrl = process.env.DATABASE_URL;
    if (!baseUrl) {
      const { startThrowawayPostgres } = await import('./throwaway-postgres.ts');
      const pg = await startThrowawayPostgres({ ownerPid: process.pid });
      baseUrl = pg.url;
      stopPostgres = () => pg.stop();
    }
  } else delete env.DATABASE_URL;
  const { migratedPgliteTemplate, copyMigratedPglite } = await import('../test/support/pglite-template.ts');
  if (database === 'pglite') await migratedPgliteTemplate();

  /** A fresh database for one child: its environment. */
  async function freshDatabase(): Promise<NodeJS.ProcessEnv> {
    const dataDir = fs.mkdtempSync(path.join(runDir, 'data-'));
    if (database === 'pglite') {
      copyMigratedPglite(dataDir);
      return { ...env, DATA_DIR: dataDir };
    }
    const pg = (await import('pg')).default;
    const name = `simulate_${crypto.randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(baseUrl!);
    url.pathname = `/${name}`;
    return { ...env, DATA_DIR: dataDir, DATABASE_URL: url.toString() };
  }

  const started = Date.now();
  const failures: { seed: number; invariants: string[] }[] = [];
  const totals: Record<string, number> = {};
  let ran = 0;
  const chunk = Math.max(1, Number(opts.chunk));
  console.log(`simulating ${seeds.length} seed(s) from ${seeds[0]} on ${database}, ${opts.steps} steps each, ${chunk} per process`);
  try {
    const queue = [...seeds];
    while (queue.length) {
      const part = queue.splice(0, chunk);
      const childEnv = await freshDatabase();
      const args = ['--liftoff-only', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', '--from', String(part[0]), '--seeds', String(part.length), '--steps', String(opts.steps)];
      const proc = spawn(process.execPath, args, { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      proc.stderr.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-20_000)));
      let buffered = '';
      const seen = new Set<number>();
      proc.stdout.on('data', (d: Buffer) => {
        buffered += d.toString();
        let nl;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (!line.startsWith(RESULT)) continue;
          const r = JSON.parse(line.slice(RESULT.length)) as SeedResult;
          seen.add(r.seed);
          ran += 1;
          for (const [k, v] of Object.entries(r.stats ?? {})) if (typeof v === 'number') totals[k] = k === 'zombieExcess' ? Math.max(totals[k] ?? 0, v) : (totals[k] ?? 0) + v;
          if (r.violations.length) {
            failures.push({ seed: r.seed, invariants: [...new Set<string>(r.violations.map((v: { invariant: string }) => v.invariant))] });
            process.stdout.write('\n');
            console.log(formatFailure(r));
          } else if (opts.verbose || opts.seed) console.log(`${formatPass(r)}${opts.verbose ? `\n${r.log.join('\n')}` : ''}`);
          else process.stdout.write('.');
        }
      });
      const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
      const missing = part.filter((s) => !seen.has(s));
      // Ended after a hung seed (exit 3): the rest of its chunk goes on in a new process.
      if (code === 3 && missing.length) queue.unshift(...missing);
      else if (missing.length) {
        failures.push({ seed: missing[0], invariants: [`the process running seeds ${missing[0]}…${missing.at(-1)} ended (code ${code}) before they ran`] });
        console.log(`\nthe process of seeds ${part[0]}…${part.at(-1)} ended with code ${code} before seed ${missing[0]}; its last output:\n${stderr}`);
      }
    }
  } finally {
    stopPostgres?.();
    fs.rmSync(runDir, { recursive: true, force: true });
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(`\n${ran} seed(s) ran on ${database} in ${minutes} min: ${ran - failures.length} kept every invariant, ${failures.length} failed`);
  console.log(`totals: ${JSON.stringify(totals)}`);
  const byInvariant = new Map<string, number[]>();
  for (const f of failures) for (const inv of f.invariants) byInvariant.set(inv, [...(byInvariant.get(inv) ?? []), f.seed]);
  for (const [inv, list] of byInvariant) console.log(`  ✗ ${inv}: seeds ${list.slice(0, 20).join(', ')}${list.length > 20 ? ` and ${list.length - 20} more` : ''}`);
  process.exit(failures.length ? 1 : 0);
}
