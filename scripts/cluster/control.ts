// Bringing the native cluster's services up and waiting for their health, shared by
// `npm run cluster -- up` and the chaos test (scripts/chaos/), which restarts services one by one.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { portFree } from './probes.ts';
import { services, type Service } from './services.ts';

type Log = (line: string) => void;
const rel = (file: string) => path.relative(process.cwd(), file);

/** How long a service may take to become healthy: apps build the bundle and migrate first. */
const startTimeoutMs: Record<string, number> = { postgres: 120_000, temporal: 180_000 };
const defaultTimeoutMs = 240_000;

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).map((l) => `    ${l}`).join('\n');
  } catch {
    return '    (no log)';
  }
}

export async function waitHealthy(s: Service): Promise<void> {
  const deadline = Date.now() + (startTimeoutMs[s.name] ?? defaultTimeoutMs);
  while (!(await s.healthy())) {
    if (s.pid() === undefined) throw new Error(`${s.name} exited; its log (${rel(s.log)}) ends with:\n${tail(s.log)}`);
    if (Date.now() > deadline) throw new Error(`${s.name} is not healthy yet; its log (${rel(s.log)}) ends with:\n${tail(s.log)}`);
    await sleep(500);
  }
}

/** Prepares every service, then starts those not running, in order, each healthy before the next. */
export async function startMissing(log: Log): Promise<void> {
  for (const s of services) await s.prepare?.(log);
  const busy: string[] = [];
  for (const s of services) {
    if (s.pid() !== undefined) continue;
    for (const port of s.ports) if (!(await portFree(port))) busy.push(`${port} (${s.name})`);
  }
  if (busy.length) throw new Error(`ports in use by something else: ${busy.join(', ')}; stop it, or the cluster that holds them`);
  for (const s of services) {
    if (s.pid() === undefined) {
      log(`starting ${s.name}`);
      await s.start(log);
    }
    await waitHealthy(s);
    await s.afterStart?.(log);
  }
}
