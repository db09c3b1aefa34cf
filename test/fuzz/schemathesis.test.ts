// Fuzzing the public API with schemathesis (PyPI, provisioned into .tools/schemathesis by
// scripts/provision.sh): every check in every phase (examples, coverage, fuzzing, stateful), with
// the settings of schemathesis.toml beside this file, against the service as `npm start` runs it:
// bundled by scripts/build.ts and run on plain node with the start script's flags and environment,
// an embedded PGlite in a temporary DATA_DIR (migrated, not yet seeded), its own Temporal dev
// server. The schema is the one the service serves; the API key is the demo key of the first-run
// banner.
// Reports (JUnit for CI, JSON read below, a VCR cassette of every request) land in
// test-results/schemathesis/.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onFreePorts } from '../support/temporal.ts';
import { copyMigratedPglite } from '../support/pglite-template.ts';
import { provisioned } from '../support/tools.ts';
import { builtServiceCommand } from '../support/built-service.ts';

const root = path.resolve(import.meta.dirname, '../..');
const reportDir = path.join(root, 'test-results', 'schemathesis');
// A guard against a hang, not a target: a run takes 2½ to 5 minutes on our two (shared) cores.
const FUZZ_BUDGET_MS = 420_000;

interface Service {
  origin: string;
  apiKey: string;
  child: ChildProcess;
  output: () => string;
}

const cleanups: (() => void | Promise<void>)[] = [];

async function startService(): Promise<Service> {
  // The service and, beside it, its workflow bundle, as scripts/build.ts lays out dist/ (npm start
  // prints its banner only once its worker runs), built once per run (support/built-service.ts).
  const { args, env: startEnv } = await builtServiceCommand('all');
  // Fresh ports again if one was taken meanwhile (onFreePorts), and a fresh data directory with
  // them: the first start seeds the demo workspace and prints its key before it starts Temporal
  // and listens, so a start that lost a port leaves a seeded database whose key a second start on
  // it would no longer print.
  const { port, child, output } = await onFreePorts(async (ports) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketing-fuzz-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    // On the migrated embedded database (the run's template; a first start from nothing, initdb
    // included, is test/e2e/start.test.ts's): it seeds the demo workspace as on a fresh clone.
    copyMigratedPglite(dataDir);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...startEnv,
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      PORT: String(ports.http),
      TEMPORAL_PORT: String(ports.temporal),
      TEMPORAL_UI_PORT: String(ports.ui),
      LOG_LEVEL: 'warn',
      // The demo key gets this limit: the fuzzer sends thousands of requests a minute, and 429s
      // would only hide the answers it came to check.
      DEFAULT_REQUESTS_PER_MINUTE: '1000000',
    };
    delete env.DATABASE_URL; // embedded PGlite, as on a fresh clone
    delete env.TEMPORAL_ADDRESS;
    // Its own process group: a failed run kills the service and its Temporal dev server alike.
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    cleanups.unshift(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM'); // stops its Temporal dev server too
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start banner in 120 s:\n${out}`)), 120_000);
      child.stdout.on('data', () => {
        if (out.includes('Database:')) {
          clearTimeout(timer);
          resolve();
        }
      });
      // 'close': by then its last lines, which say why, have been read.
      child.once('close', (code) => reject(new Error(`the service exited with ${code}:\n${out}`)));
    });
    return { port: ports.http, child, output: () => out };
  });
  const apiKey = /API key \(shown once, every scope\): (svc_\S+)/.exec(output())?.[1];
  if (!apiKey) throw new Error(`no API key in the start banner:\n${output()}`);
  return { origin: `http://127.0.0.1:${port}`, apiKey, child, output };
}

interface Run {
  exitCode: number | null;
  output: string;
  report: {
    failures: { code: string; title: string; count: number; operations: string[] }[];
    errors: unknown[];
    operations: { total: number; tested: number; errored: number };
    phases: Record<string, { status: string }>;
  };
}

/**
 * A ticket for the operations on an existing ticket: the fuzzer cannot create one itself (a
 * schema-valid ticket rarely fits a board's data) and would only ever reach 404 there.
 * schemathesis.toml passes it as their `id`.
 */
async function seedTicket(service: Service): Promise<Record<string, string>> {
  const call = async (method: string, pathname: string, body?: unknown) => {
    const res = await fetch(`${service.origin}/public/v1${pathname}`, {
      method,
      headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const board = (await call('GET', '/boards?limit=1')).data[0];
  const fields = board.fields
    .filter((f: { required: boolean }) => f.required)
    .map((f: { id: string; options: string[] }) => ({ fieldId: f.id, value: f.options[0] }));
  const ticket = await call('POST', '/tickets', { boardId: board.id, subject: 'Fuzzed', requesterEmail: 'fuzz@example.com', fields });
  return { FUZZ_TICKET_ID: String(ticket.id) };
}

async function runSchemathesis(service: Service, ids: Record<string, string>): Promise<Run> {
  const home = provisioned('SCHEMATHESIS_DIR');
  fs.rmSync(reportDir, { recursive: true, force: true });
  const jsonReport = path.join(reportDir, 'report.json');
  const args = [
    path.join(home, 'bin', 'schemathesis'),
    '--config-file', path.join(import.meta.dirname, 'schemathesis.toml'),
    'run', `${service.origin}/public/v1/openapi.json`,
    '--url', `${service.origin}/public/v1`,
    '--header', `Authorization: Bearer ${service.apiKey}`,
    '--checks', 'all',
    '--phases', 'examples,coverage,fuzzing,stateful',
    // VCR: every request and answer of the run, to replay a stateful failure step by step.
    '--report', 'junit,json,vcr',
    '--report-dir', reportDir,
    '--report-junit-path', path.join(reportDir, 'junit.xml'),
    '--report-json-path', jsonReport,
    '--report-vcr-path', path.join(reportDir, 'cassette.yaml'),
    '--no-color',
  ];
  // The entry point run by python3 itself, so the interpreter found now is the one used.
  const child = spawn('python3', args, { env: { ...process.env, ...ids, PYTHONPATH: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), FUZZ_BUDGET_MS);
  const exitCode = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  clearTimeout(timer);
  if (!fs.existsSync(jsonReport)) throw new Error(`schemathesis wrote no report (exit ${exitCode}; killed after ${FUZZ_BUDGET_MS / 1000} s?):\n${output}`);
  return { exitCode, output, report: JSON.parse(fs.readFileSync(jsonReport, 'utf8')) };
}

/** The part of schemathesis's output that says what failed and how to reproduce it. */
function failuresOf(output: string): string {
  const start = output.indexOf('= FAILURES =');
  const end = output.indexOf('= SUMMARY =');
  return start === -1 ? output : output.slice(output.lastIndexOf('\n', start), end === -1 ? undefined : output.lastIndexOf('\n', end));
}

describe('schemathesis against the service as npm start runs it', () => {
  let service: Service;
  let run: Run;

  beforeAll(async () => {
    service = await startService();
    run = await runSchemathesis(service, await seedTicket(service));
  }, FUZZ_BUDGET_MS + 180_000);

  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  }, 30_000);

  it('tests every operation of the served document, without errors of its own', () => {
    expect(run.report.operations.tested, run.output).toBe(run.report.operations.total);
    expect(run.report.operations.errored, run.output).toBe(0);
    expect(run.report.errors, run.output).toEqual([]);
  });

  it('finds no 5xx answer and no answer that disagrees with the document', () => {
    const found = run.report.failures.map((f) => `${f.code} ${f.title}: ${f.count}× in ${f.operations.join(', ')}`);
    expect(found, failuresOf(run.output)).toEqual([]);
    expect(run.exitCode, run.output).toBe(0);
  });

  it('leaves the service running and healthy', async () => {
    expect(service.child.exitCode, service.output()).toBeNull();
    const health = await fetch(`${service.origin}/healthz`);
    expect(health.status, service.output()).toBe(200);
  });
});
