// Runs `temporal server start-dev` (Temporal CLI) as a child process with SQLite persistence.
// The child never outlives us: an 'exit' hook kills it on a normal exit, and a watchdog
// process kills it when we die without running hooks (signal, SIGKILL, crash).
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EphemeralServerExecutable } from '@temporalio/testing';
import { resolveTemporalCli } from './binaries.ts';
import { deliverySearchAttributes, type SearchAttributeTypeName } from './search-attribute-types.ts';
import { forwardLines, startWatchdog } from './dev-server-process.ts';
import { isPortFree, waitUntilReady } from './dev-server-ready.ts';

export { deliverySearchAttributes };

export interface StartDevServerOptions {
  /** SQLite file; state survives restarts on the same file. Omitted: in memory. */
  dbFile?: string;
  port: number;
  /** Web UI port. Omitted: no UI (`--headless`). */
  uiPort?: number;
  ip?: string;
  namespace?: string;
  searchAttributes?: Record<string, SearchAttributeTypeName>;
  /** Defaults to resolveTemporalCli(). */
  executable?: EphemeralServerExecutable;
  startTimeoutMs?: number;
  /** Receives the server's own log lines (it logs at warn level and above). */
  onLog?: (line: string) => void;
  /** SQLite pragmas (`name=value`); defaults to SQLITE_PRAGMAS (bench/dev-server-sqlite.ts compares others). */
  sqlitePragmas?: readonly string[];
  /** Dynamic config values on top of devServerDynamicConfig (a test's; the service passes none). */
  dynamicConfig?: Record<string, unknown>;
}

/** The SQLite settings of the dev server's file (measured by bench/dev-server-sqlite.ts). */
export const SQLITE_PRAGMAS: readonly string[] = ['journal_mode=WAL', 'synchronous=OFF'];

export interface DevServer {
  address: string;
  namespace: string;
  uiUrl: string | undefined;
  /** The server's process (undefined when the SDK runs a downloaded one). */
  pid: number | undefined;
  /** Resolves when the server process has ended, however (never for the SDK's download). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/**
 * The dev server's dynamic config. The production shape's Temporal server reads the same two
 * delivery settings from deploy/temporal-dynamic-config.yaml (test/cluster/compose.test.ts keeps
 * them equal; why each: docs/operators/operations.md, "Temporal settings").
 */
export const devServerDynamicConfig = {
  // Skip the server's call home for version news: our machines have no internet.
  'frontend.enableServerVersionCheck': false,
  // Task-queue fairness (server 1.29 and later; off by default in start-dev): tasks carrying a
  // fairness key (the workspace) are dispatched round-robin across keys, not first come, first served.
  'matching.enableFairness': true,
  // A run that continues as new within this (seconds) of its start has its next run's first task
  // held back until then (1 s by default, against tight continue-as-new loops). A delivery run
  // continues as new after listing 50 events, so the default caps a busy subscription near 50
  // deliveries/s; 0.1 s lifts that to about 500/s.
  'history.workflowIdReuseMinimalInterval': 0.1,
  // A delivery run's batch (an activity on the run's own task queue) is handed to the worker with
  // the reply to the workflow task that scheduled it, not dispatched through the task queue: one
  // round trip less between an event and its POST (the SDK asks for it by default).
  'system.enableActivityEagerExecution': true,
};

export async function startDevServer(options: StartDevServerOptions): Promise<DevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const executable = options.executable ?? resolveTemporalCli();
  const uiUrl = options.uiPort === undefined ? undefined : `http://${ip}:${options.uiPort}`;
  if (options.dbFile) mkdirSync(path.dirname(path.resolve(options.dbFile)), { recursive: true });
  // Otherwise the readiness probe below could be answered by whatever already holds the port.
  for (const port of [options.port, options.uiPort]) {
    if (port !== undefined && !(await isPortFree(ip, port))) {
      throw new Error(`Temporal dev server cannot start: ${ip}:${port} is already in use`);
    }
  }

  const extraArgs = [
    ...(options.sqlitePragmas ?? SQLITE_PRAGMAS).flatMap((pragma) => ['--sqlite-pragma', pragma]),
    ...Object.entries({ ...devServerDynamicConfig, ...options.dynamicConfig }).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]),
    ...Object.entries(options.searchAttributes ?? deliverySearchAttributes).flatMap(([name, type]) => [
      '--search-attribute', `${name}=${type}`,
    ]),
  ];

  if (executable.type === 'cached-download') {
    // No local CLI: let the SDK download and supervise it (works only with internet access).
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable,
        ip,
        port: options.port,
        namespace,
        dbFilename: options.dbFile,
        ui: options.uiPort !== undefined,
        uiPort: options.uiPort,
        extraArgs,
      },
    });
    return { address: env.address, namespace, uiUrl, pid: undefined, exited: new Promise(() => undefined), stop: () => env.teardown() };
  }

  const args = [
    'server', 'start-dev',
    '--ip', ip,
    '--port', String(options.port),
    ...(options.uiPort === undefined ? ['--headless'] : ['--ui-port', String(options.uiPort)]),
    ...(options.dbFile ? ['--db-filename', path.resolve(options.dbFile)] : []),
    '--namespace', namespace,
    '--log-level', 'warn',
    ...extraArgs,
  ];
  const address = `${ip}:${options.port}`;
  const child = spawn(executable.path, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const recentLines: string[] = [];
  const onLine = (line: string) => {
    recentLines.push(line);
    if (recentLines.length > 40) recentLines.shift();
    options.onLog?.(line);
  };
  forwardLines(child, onLine);

  const killOnExit = () => {
    try {
      process.kill(child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.on('exit', killOnExit);
  const watchdog = child.pid ? startWatchdog(child.pid) : undefined;
  child.unref();

  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitPromise = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close' rather than 'exit': by then its last log lines have been read.
    child.once('close', (code, signal) => {
      exited = { code, signal };
      // Gone by itself (crash, kill): nothing left for the hook and the watchdog to stop.
      process.off('exit', killOnExit);
      watchdog?.kill('SIGKILL');
      resolve(exited);
    });
  });
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  spawnError.catch(() => undefined);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      process.off('exit', killOnExit);
      watchdog?.kill('SIGKILL');
      if (exited || child.pid === undefined) return;
      child.kill('SIGTERM');
      const graceful = await Promise.race([exitPromise.then(() => true), sleep(15_000).then(() => false)]);
      if (!graceful) {
        child.kill('SIGKILL');
        await exitPromise;
      }
    })());

  try {
    await Promise.race([
      spawnError,
      waitUntilReady({
        host: ip,
        port: options.port,
        namespace,
        searchAttributes: Object.keys(options.searchAttributes ?? deliverySearchAttributes),
        timeoutMs: options.startTimeoutMs ?? 60_000,
        hasExited: () => exited !== undefined,
      }),
    ]);
  } catch (err) {
    const exitedBySelf = exited;
    await stop();
    const how = exitedBySelf ? ` (exited with ${exitedBySelf.signal ?? `code ${exitedBySelf.code}`})` : '';
    const log = recentLines.length ? `\n${recentLines.join('\n')}` : '';
    throw new Error(`Temporal dev server at ${address} did not start${how}: ${(err as Error).message}${log}`, { cause: err });
  }
  return { address, namespace, uiUrl, pid: child.pid, exited: exitPromise, stop };
}
