// Runs `temporal server start-dev` (Temporal CLI) as a child process with SQLite persistence.
// The child never outlives us: an 'exit' hook kills it on a normal exit, and a watchdog
// process kills it when we die without running hooks (signal, SIGKILL, crash).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import type { EphemeralServerExecutable } from '@temporalio/testing';
import { resolveTemporalCli } from './binaries.ts';
import { deliverySearchAttributes, type SearchAttributeTypeName } from './search-attribute-types.ts';
import { aborted, supervise, type SuperviseLog } from '../supervise.ts';

export { deliverySearchAttributes };

interface StartDevServerOptions {
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
    // Skip the server's call home for version news: our machines have no internet.
    '--dynamic-config-value', 'frontend.enableServerVersionCheck=false',
    // Task-queue fairness (server 1.29 and later; off by default in start-dev): tasks carrying a
    // fairness key (the workspace) are dispatched round-robin across keys, not first come, first served.
    '--dynamic-config-value', 'matching.enableFairness=true',
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
    throw new Error(`Temporal dev server at ${address} did not start${how}: ${(err as Error).message}${log}`);
  }
  return { address, namespace, uiUrl, pid: child.pid, exited: exitPromise, stop };
}

/** Restart delays after the server ended: the first at once-ish, then longer up to 10 s. */
const RESTART_DELAYS_MS = [250, 1_000, 2_000, 5_000, 10_000];
/** A server that ran this long before it ended is restarted as if for the first time. */
const STABLE_AFTER_MS = 60_000;

/**
 * startDevServer, kept running: when the server process ends by itself (crash, OOM kill, SIGKILL)
 * it is started again on the same SQLite file and ports, so its workflows and history survive
 * and clients at the same address reconnect (the SDK's connections do so on their own). Each
 * restart is logged; repeated ones back off to 10 s. `pid()` is the current server's process.
 * (A server the SDK downloaded and runs itself, without a local CLI, is not supervised.)
 */
export async function startSupervisedDevServer(
  options: StartDevServerOptions & { log?: SuperviseLog },
): Promise<Omit<DevServer, 'pid' | 'exited'> & { pid(): number | undefined }> {
  const log = options.log ?? { info: () => undefined, warn: () => undefined };
  let current = await startDevServer(options);
  let first = true;
  const supervisor = supervise({
    async run({ signal, healthy }) {
      if (!first) {
        current = await startDevServer(options);
        log.info({ address: current.address, pid: current.pid }, 'Temporal dev server restarted');
      }
      first = false;
      const startedAt = Date.now();
      const ended = await Promise.race([current.exited, aborted(signal).then(() => undefined)]);
      if (!ended) return;
      if (Date.now() - startedAt >= STABLE_AFTER_MS) healthy();
      throw new Error(`exited with ${ended.signal ?? `code ${ended.code}`}`);
    },
    backoffMs: (failures) => RESTART_DELAYS_MS[Math.min(failures - 1, RESTART_DELAYS_MS.length - 1)]!,
    failed: 'Temporal dev server ended; restarting it',
    logEvery: 1,
    fields: { address: current.address },
    log,
  });

  return {
    address: current.address,
    namespace: current.namespace,
    uiUrl: current.uiUrl,
    pid: () => current.pid,
    async stop() {
      await supervisor.stop();
      await current.stop();
    },
  };
}

function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function acceptsConnections(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function forwardLines(child: ChildProcess, onLine: (line: string) => void) {
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    // Read always (a full pipe would block the server) but never keep our event loop alive.
    (stream as Socket).unref();
    let buffered = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) onLine(line);
    });
  }
}

// A tiny shell that blocks reading a pipe from us; the pipe closes when we die in any way,
// and then it terminates the server (escalating to SIGKILL after 10 s).
function startWatchdog(pid: number): ChildProcess {
  const script =
    'read -r _; kill -TERM "$1" 2>/dev/null || exit 0; i=0; ' +
    'while kill -0 "$1" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.2; i=$((i+1)); done; ' +
    'kill -KILL "$1" 2>/dev/null; exit 0';
  const watchdog = spawn('/bin/sh', ['-c', script, 'temporal-dev-server-watchdog', String(pid)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  (watchdog.stdin as unknown as Socket | null)?.unref();
  return watchdog;
}

async function waitUntilReady(opts: {
  host: string;
  port: number;
  namespace: string;
  searchAttributes: string[];
  timeoutMs: number;
  hasExited: () => boolean;
}): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (opts.hasExited()) throw new Error('process exited during startup');
    // A bare TCP probe first: a gRPC connect to a closed port backs off for a second.
    if (!(await acceptsConnections(opts.host, opts.port))) {
      await sleep(50);
      continue;
    }
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address: `${opts.host}:${opts.port}`, connectTimeout: '2s' });
      await connection.workflowService.describeNamespace({ namespace: opts.namespace });
      const { customAttributes } = await connection.operatorService.listSearchAttributes({
        namespace: opts.namespace,
      });
      const missing = opts.searchAttributes.filter((name) => !(name in (customAttributes ?? {})));
      if (missing.length === 0) return;
      lastError = new Error(`search attributes not registered yet: ${missing.join(', ')}`);
    } catch (err) {
      lastError = err;
    } finally {
      await connection?.close().catch(() => undefined);
    }
    await sleep(100);
  }
  throw new Error(`not ready after ${opts.timeoutMs} ms: ${(lastError as Error | undefined)?.message ?? 'timeout'}`);
}
