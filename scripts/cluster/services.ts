// The native cluster's processes, in start order, each with how it starts, stops, and is probed.
// Everything lives under .data/cluster/: run/ (pid files), logs/, postgres/ (as root elsewhere:
// postgresDirFor), redis/, temporal/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fromRoot, repoRoot } from '../../src/paths.ts';
import { aptInstall } from '../apt.ts';
import { crashPostgres, postgresDirFor, postgresLog, postgresPid, postgresReady, startPostgres, stopPostgres } from './postgres.ts';
import { killDetached, logFile, runningPid, startDetached, stopDetached, type ProcessDirs } from './processes.ts';
import { groupPids, httpOk, polling, redisPong, workflowPollers } from './probes.ts';
import {
  nativeTemporalServerEnv, nativeTemporalUiEnv, registerNamespaceAndSearchAttributes, serverCommand,
  setupSchema, temporalServerPorts, temporalServing, uiCommand,
} from './temporal.ts';
import { binaryOf, ensureTool, temporalServer, temporalSqlTool, temporalUi } from './tools.ts';
import { clusterSecretKeys } from './secret-keys.ts';
import { appEnv, appProcesses, composePorts, nativeEndpoints, nativeMetricsPort, nativePort, versions, type AppProcess } from './topology.ts';

export const clusterDir = fromRoot('.data', 'cluster');
const dirs: ProcessDirs = { run: path.join(clusterDir, 'run'), logs: path.join(clusterDir, 'logs') };
type Log = (line: string) => void;

export interface Service {
  name: string;
  /** Ports it listens on (the first is the one it is reached at). */
  ports: number[];
  /** Where its /metrics answers (api and worker: METRICS_PORT), also in `ports`. */
  metricsPort?: number;
  log: string;
  /** Installs or builds what it needs (before anything starts). */
  prepare?(log: Log): Promise<void>;
  start(log: Log): Promise<void>;
  /** Run once it is healthy (registration steps). */
  afterStart?(log: Log): Promise<void>;
  /** How it stopped; undefined when it was not running. */
  stop(): Promise<'stopped' | 'killed' | undefined>;
  /** Ends it abruptly (chaos testing): SIGKILL, or PostgreSQL's immediate shutdown. False when it was not running. */
  kill(): Promise<boolean>;
  pid(): number | undefined;
  healthy(): Promise<boolean>;
}

const pg = { dir: postgresDirFor(clusterDir), port: nativePort(composePorts.postgres) };

const postgres: Service = {
  name: 'postgres',
  ports: [pg.port],
  log: postgresLog(pg),
  start: async (log) => startPostgres(pg, log),
  stop: async () => (stopPostgres(pg) ? 'stopped' : undefined),
  kill: async () => crashPostgres(pg),
  pid: () => postgresPid(pg),
  healthy: async () => postgresReady(pg),
};

interface DetachedSpec {
  name: string;
  ports: number[];
  healthy: () => Promise<boolean>;
  command: () => { command: string; args: string[]; env?: NodeJS.ProcessEnv };
  /** Runs before each start (idempotent set-up). */
  before?: (log: Log) => void;
}

/** A service that is one detached process (group) with a pid file. */
function detached(spec: DetachedSpec): Service {
  return {
    name: spec.name,
    ports: spec.ports,
    log: logFile(dirs, spec.name),
    start: async (log) => {
      spec.before?.(log);
      const { command, args, env } = spec.command();
      startDetached(dirs, spec.name, command, args, { cwd: repoRoot, env: { ...process.env, ...env } });
    },
    stop: () => stopDetached(dirs, spec.name),
    kill: () => killDetached(dirs, spec.name),
    pid: () => runningPid(dirs, spec.name),
    healthy: spec.healthy,
  };
}

const redisPort = nativePort(composePorts.redis);
const redisDir = path.join(clusterDir, 'redis');
const redis: Service = {
  ...detached({
    name: 'redis',
    ports: [redisPort],
    healthy: () => redisPong(redisPort),
    before: () => mkdirSync(redisDir, { recursive: true }),
    command: () => ({ command: 'redis-server', args: ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', redisDir] }),
  }),
  prepare: async () => {
    let version: string;
    try {
      version = execFileSync('redis-server', ['--version'], { encoding: 'utf8' });
    } catch {
      aptInstall(['redis-server'], 'redis-server');
      version = execFileSync('redis-server', ['--version'], { encoding: 'utf8' });
    }
    const major = Number(/v=(\d+)\./.exec(version)?.[1]);
    if (major !== versions.redisMajor) throw new Error(`redis-server is ${major}.x; docker-compose.yml runs redis:${versions.redisMajor}`);
  },
};

const temporalServerService: Service = {
  ...detached({
    name: 'temporal',
    ports: [nativePort(composePorts.temporal), ...temporalServerPorts()],
    healthy: () => temporalServing(),
    before: (log) => setupSchema(binaryOf(temporalSqlTool), log),
    command: () => ({ ...serverCommand(binaryOf(temporalServer)), env: nativeTemporalServerEnv() }),
  }),
  prepare: async (log) => {
    await ensureTool(temporalServer, log);
    await ensureTool(temporalSqlTool, log);
  },
  afterStart: registerNamespaceAndSearchAttributes,
};

const uiPort = nativePort(composePorts.temporalUi);
const temporalUiService: Service = {
  ...detached({
    name: 'temporal-ui',
    ports: [uiPort],
    healthy: () => httpOk(`http://127.0.0.1:${uiPort}/`),
    command: () => ({ ...uiCommand(binaryOf(temporalUi)), env: nativeTemporalUiEnv() }),
  }),
  prepare: async (log) => void (await ensureTool(temporalUi, log)),
};

/** `npm start -- <role>` itself, so the bundle, its build and the heap flags are exactly production's. */
function app(p: AppProcess): Service {
  const port = p.publishedPort === undefined ? undefined : nativePort(p.publishedPort);
  const healthy = port !== undefined
    ? () => httpOk(`http://127.0.0.1:${port}/healthz`)
    : async () => {
        const pid = runningPid(dirs, p.name);
        return pid !== undefined && polling(pid, await workflowPollers());
      };
  const npm = process.env.npm_execpath;
  const metricsPort = nativeMetricsPort(p);
  return {
    ...detached({
      name: p.name,
      ports: [...(port === undefined ? [] : [port]), metricsPort],
      healthy,
      command: () => ({
        command: npm ? process.execPath : 'npm',
        args: [...(npm ? [npm] : []), 'start', '--', p.role],
        env: { ...appEnv(nativeEndpoints, clusterSecretKeys()), ...p.env, ...(port === undefined ? {} : { PORT: String(port) }), METRICS_PORT: String(metricsPort) },
      }),
    }),
    metricsPort,
  };
}

export const services: Service[] = [postgres, redis, temporalServerService, temporalUiService, ...appProcesses.map(app)];

/** The pids of a service's process group besides its leader (npm's node child), for status. */
export const childPids = (s: Service) => {
  const pid = s.pid();
  return pid === undefined || !existsSync('/proc') ? [] : groupPids(pid).filter((p) => p !== pid);
};
