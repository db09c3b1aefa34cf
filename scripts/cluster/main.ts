// npm run cluster -- up|down|status
// The production topology of docker-compose.yml, natively on this machine (scripts/cluster/topology.ts):
// PostgreSQL, the Temporal server on it, Temporal Web, Redis, two api and two worker processes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { childPids, clusterDir, services } from './services.ts';
import { startMissing } from './control.ts';
import { nativeEndpoints, versions } from './topology.ts';

const log = (line: string) => console.log(line);
const rel = (file: string) => path.relative(process.cwd(), file);

async function up(): Promise<void> {
  const started = Date.now();
  await startMissing(log);
  log(`\nup in ${((Date.now() - started) / 1000).toFixed(1)} s (Temporal server ${versions.temporalServer}, Temporal Web ${versions.temporalUi}, PostgreSQL ${versions.postgresMajor}, Redis ${versions.redisMajor})`);
  await status();
  const demo = readFileSync(services.find((s) => s.name === 'api-1')!.log, 'utf8').split('\n').filter((l) => /API key \(shown once|Administrator sign-in/.test(l));
  if (demo.length) log(`\nThe demo workspace (created by the first run; api-1.log keeps it):\n${demo.join('\n')}`);
}

async function down(): Promise<void> {
  for (const s of [...services].reverse()) {
    const how = await s.stop();
    log(how === undefined ? `${s.name} was not running` : how === 'killed' ? `killed ${s.name} (no exit within 15 s of SIGTERM)` : `stopped ${s.name}`);
  }
}

/** One line per process: pid (and its children), ports, health, log. True when all are healthy. */
async function status(): Promise<boolean> {
  const rows = [['process', 'pid', 'port', 'metrics', 'health', 'log']];
  let allHealthy = true;
  for (const s of services) {
    const pid = s.pid();
    const healthy = pid !== undefined && (await s.healthy());
    allHealthy &&= healthy;
    const children = childPids(s);
    rows.push([
      s.name,
      pid === undefined ? '-' : children.length ? `${pid} (${children.join(' ')})` : String(pid),
      s.ports.length && s.ports[0] !== s.metricsPort ? String(s.ports[0]) : '-',
      s.metricsPort === undefined ? '-' : String(s.metricsPort),
      pid === undefined ? 'stopped' : healthy ? 'healthy' : 'UNHEALTHY',
      rel(s.log),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) log(r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
  log(`\nREST API: ${nativeEndpoints.publicApiOrigin}/public/v1 (api-2 on the next port)   Temporal Web: ${nativeEndpoints.temporalUiUrl}   data: ${rel(clusterDir)}/`);
  return allHealthy;
}

const command = process.argv[2];
const commands: Record<string, () => Promise<unknown>> = { up, down, status };
if (!command || !commands[command]) {
  console.error('usage: npm run cluster -- up|down|status');
  process.exit(2);
}
try {
  const result = await commands[command]();
  process.exit(result === false ? 1 : 0);
} catch (err) {
  console.error(`cluster ${command}: ${(err as Error).message}`);
  process.exit(1);
}
