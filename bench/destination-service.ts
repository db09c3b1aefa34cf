// The service one case of bench/destinations.ts runs on: `npm start` (bench/npm-start.ts) on a
// fresh data directory (PGlite) or a fresh PostgreSQL database; its workspaces, made on demand,
// each with its keys and tickets; and the CPU time so far of everything the case's figures
// divide: the machine, the service's one process, its Temporal dev server, each broker's
// processes and this benchmark.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { BrokerType } from '../src/webhooks/message/destinations/settings.ts';
import { cliOf, createTickets, createWorkspaceWithKey, firstBoard, freshDatabase, newKey, serviceEnv, startServicePart, stopChild, type Api } from './npm-start.ts';
import type { BrokerSet } from './destination-targets.ts';
import type { CaseReceiver } from './webhook-case-receivers.ts';
import { cpuMsOfPid, devServerPid, groupsCpuMs, machineCpu } from './webhook-measure.ts';

export interface CpuSnapshot {
  machine: { busyMs: number; idleMs: number };
  service: number;
  devServer: number;
  /** Per destination type, its broker's processes (SQS and EventBridge: the one moto server). */
  brokers: Partial<Record<BrokerType, number>>;
  /** This benchmark's process: the HTTPS receiver, the readers, the API calls. */
  bench: number;
}

/** A workspace of the service: an administrator's key, more keys for more subscriptions, tickets. */
export interface Workspace {
  api: Api;
  /** The key that creates the n-th subscription (a key may create 10: DEFAULT_MAX_WEBHOOK_SUBSCRIPTIONS). */
  keyFor(n: number): Api;
  ticketIds: string[];
}

export interface PhaseService {
  /** A new workspace `name` with keys for `subscriptions` and `tickets` tickets. */
  workspace(name: string, subscriptions: number, tickets: number): Promise<Workspace>;
  receiver: CaseReceiver;
  brokers: BrokerSet;
  cpu(): CpuSnapshot;
  stop(): Promise<void>;
}

export interface PhaseServiceOptions {
  tree: string;
  tag: string;
  caFile: string;
  /** A PostgreSQL server to make a fresh database on; absent: PGlite, as `npm start` by default. */
  postgresUrl?: string;
  /** The case's own settings (the allowance, the held cap). */
  env: Record<string, string>;
  receiver: CaseReceiver;
  brokers: BrokerSet;
  /** Each broker's process groups, by the destination types it serves. */
  brokerGroups: Partial<Record<BrokerType, number[]>>;
  log: (m: string) => void;
}

const SUBSCRIPTIONS_PER_KEY = 10;
const SCOPES = ['tickets:read', 'tickets:write', 'boards:read', 'webhooks:manage'];

export async function startPhaseService(o: PhaseServiceOptions): Promise<PhaseService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-destinations-'));
  const databaseUrl = o.postgresUrl ? await freshDatabase(o.postgresUrl, `bench_destinations_${o.tag}_${Date.now()}`) : undefined;
  const { env, port } = await serviceEnv(dataDir, o.caFile, databaseUrl, o.env);
  o.log(`${o.tag}: starting the service (${databaseUrl ? 'PostgreSQL' : 'embedded default, PGlite'})`);
  let child: ChildProcess | undefined;
  const stop = async () => {
    if (child) await stopChild(child);
    child = undefined;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    child = await startServicePart(o.tree, 'all', env, o.tag);
    const servicePid = child.pid!;
    const temporalPid = devServerPid(Number(env.TEMPORAL_PORT));
    const cli = cliOf(o.tree, env);
    const base = `http://127.0.0.1:${port}/public/v1`;
    return {
      async workspace(name, subscriptions, tickets) {
        const { api, domain } = createWorkspaceWithKey(cli, base, name, o.tag, SCOPES);
        const keys = [api];
        while (keys.length * SUBSCRIPTIONS_PER_KEY < subscriptions) keys.push(newKey(cli, base, domain, SCOPES));
        const ticketIds = await createTickets(api, await firstBoard(api), tickets);
        return { api, keyFor: (n) => keys[Math.floor(n / SUBSCRIPTIONS_PER_KEY)], ticketIds };
      },
      receiver: o.receiver,
      brokers: o.brokers,
      cpu: () => {
        const self = process.cpuUsage();
        return {
          machine: machineCpu(),
          service: cpuMsOfPid(servicePid),
          devServer: temporalPid ? cpuMsOfPid(temporalPid) : NaN,
          brokers: Object.fromEntries(Object.entries(o.brokerGroups).map(([type, groups]) => [type, groupsCpuMs(groups)])),
          bench: (self.user + self.system) / 1000,
        };
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
