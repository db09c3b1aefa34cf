// `npx tsx bench/dev-server-sqlite.ts`: what the embedded dev server's SQLite settings cost per
// workflow. For each variant of pragmas a fresh dev server (src/temporal/dev-server.ts, SQLite
// file in a temp dir) runs the bare ceiling of bench:webhooks (empty workflows started and
// awaited by N starters, a worker in this process); rounds alternate the variants in random
// order, so that what else the machine does weighs on all alike. Figures per variant: median and
// range over rounds of workflows/s, the dev server's CPU per workflow (its own process, the
// figure other work on a shared machine moves least) and the machine's.
//
//   npx tsx bench/dev-server-sqlite.ts [-- --rounds 3 --workflows 1000 --starters 32 --only base,cache]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { startDevServer, SQLITE_PRAGMAS, type DevServer } from '../src/temporal/dev-server.ts';
import { createWorker } from '../src/temporal/worker.ts';
import { freePort } from '../scripts/free-port.ts';
import { runBench, writeResults } from './lifecycle.ts';
import { cpuMsOfPid, machineCpu, median, shuffle, uptime } from './webhook-measure.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const benchWorkflowsPath = fileURLToPath(new URL('../workflows/bench/workflows.ts', import.meta.url));

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    workflows: { type: 'string', default: '1000' },
    starters: { type: 'string', default: '32' },
    only: { type: 'string' },
  },
});
const ROUNDS = Number(opts.rounds);
const WORKFLOWS = Number(opts.workflows);
const STARTERS = Number(opts.starters);

const VARIANTS: { id: string; pragmas: readonly string[] }[] = [
  { id: 'current', pragmas: SQLITE_PRAGMAS },
  { id: 'cache64m', pragmas: [...SQLITE_PRAGMAS, 'cache_size=-65536'] },
  { id: 'temp-mem', pragmas: [...SQLITE_PRAGMAS, 'temp_store=memory'] },
  { id: 'mmap256m', pragmas: [...SQLITE_PRAGMAS, 'mmap_size=268435456'] },
  { id: 'all', pragmas: [...SQLITE_PRAGMAS, 'cache_size=-65536', 'temp_store=memory', 'mmap_size=268435456', 'busy_timeout=5000'] },
];
const only = opts.only?.split(',');
const variants = only ? VARIANTS.filter((v) => only.includes(v.id)) : VARIANTS;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sqlite-'));
let server: DevServer | undefined;
async function cleanup() {
  await server?.stop().catch(() => undefined);
  server = undefined;
  fs.rmSync(tmp, { recursive: true, force: true });
}

interface Run {
  perSecond: number;
  serverCpuMs: number;
  machineCpuMs: number;
}

async function ceilingRun(pragmas: readonly string[], n: number): Promise<Run> {
  server = await startDevServer({ dbFile: path.join(tmp, `t-${n}.sqlite`), port: await freePort(), sqlitePragmas: pragmas });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  const taskQueue = `sqlite-${n}`;
  const worker = await createWorker({ connection, namespace: server.namespace, taskQueue, workflowsPath: benchWorkflowsPath, activities: {} });
  const running = worker.run();
  const runOne = async (id: string) => {
    await (await client.workflow.start('emptyWorkflow', { taskQueue, workflowId: id })).result();
  };
  await Promise.all(Array.from({ length: STARTERS }, (_, i) => runOne(`warm-${i}`)));
  const cpu0 = cpuMsOfPid(server.pid!);
  const machine0 = machineCpu().busyMs;
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: STARTERS }, async () => {
      while (next < WORKFLOWS) await runOne(`wf-${next++}`);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const run = { perSecond: WORKFLOWS / seconds, serverCpuMs: (cpuMsOfPid(server.pid!) - cpu0) / WORKFLOWS, machineCpuMs: (machineCpu().busyMs - machine0) / WORKFLOWS };
  worker.shutdown();
  await running;
  await connection.close();
  await server.stop();
  server = undefined;
  return run;
}

async function main() {
  const loadBefore = uptime();
  const runs = new Map<string, Run[]>(variants.map((v) => [v.id, []]));
  let n = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of shuffle(variants)) {
      const run = await ceilingRun(v.pragmas, n++);
      runs.get(v.id)!.push(run);
      console.error(`round ${r + 1} ${v.id}: ${run.perSecond.toFixed(0)} workflows/s, dev server ${run.serverCpuMs.toFixed(2)} ms, machine ${run.machineCpuMs.toFixed(2)} ms per workflow`);
    }
  }
  const loadAfter = uptime();
  const range = (xs: number[], d: number) => `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})`;
  const lines = [
    `# Dev server SQLite settings: cost per workflow (${new Date().toISOString().replace(/\.\d+Z$/, 'Z')})`,
    '',
    `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores; Node ${process.version}. ${ROUNDS} rounds, variants in random order per round; each run a fresh dev server and SQLite file, ${WORKFLOWS} empty workflows by ${STARTERS} starters after a warm-up. Median (min–max) over rounds.`,
    `Load before: \`${loadBefore}\``,
    `Load after: \`${loadAfter}\``,
    '',
    '| Variant | Pragmas | workflows/s | dev server CPU ms/workflow | machine CPU ms/workflow |',
    '|---|---|--:|--:|--:|',
    ...variants.map((v) => {
      const rs = runs.get(v.id)!;
      return `| ${v.id} | ${v.pragmas.join(', ')} | ${range(rs.map((x) => x.perSecond), 0)} | ${range(rs.map((x) => x.serverCpuMs), 2)} | ${range(rs.map((x) => x.machineCpuMs), 2)} |`;
    }),
    '',
  ];
  const markdown = lines.join('\n');
  console.log(markdown);
  if (!only) writeResults(path.join(here, 'results', 'dev-server-sqlite-latest.md'), markdown);
}

runBench(main, cleanup, 60 * 60_000);
