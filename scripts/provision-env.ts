// What scripts/provision.sh --for test provided, in this process's environment: vitest's global
// setup runs it once per `npm test`, and scripts that start the tests' tools outside vitest
// (scripts/throwaway-brokers.ts) run it themselves. A warm run checks stamps (under a second).
import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** Runs scripts/provision.sh --for test and puts each NAME=value line it prints into process.env. */
export function provisionForTests(): void {
  const script = path.resolve(import.meta.dirname, 'provision.sh');
  // stderr passes through: install progress on a first run, and the one sentence naming what is missing.
  const run = spawnSync('bash', [script, '--for', 'test'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) throw new Error(`${script} --for test failed (${run.error?.message ?? `exit code ${run.status}`})`);
  for (const line of run.stdout.split('\n')) {
    const found = /^([A-Z_]+)=(.*)$/.exec(line);
    if (found) process.env[found[1]] = found[2];
  }
}

/**
 * A program or folder that provisioning provided (NAME as provision.sh prints it). A missing one
 * throws the provisioning's sentence saying what to install: the test that needs it fails, never
 * skips.
 */
export function provisionedPath(name: string): string {
  const found = process.env[name];
  if (found) return found;
  throw new Error(process.env.PROVISION_MISSING ?? `${name} is not set: run the tests with vitest, whose global setup runs scripts/provision.sh --for test`);
}
