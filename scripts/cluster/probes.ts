// Health probes of the native cluster's processes: a port is free, Redis answers PING, an api
// answers /healthz, a worker polls its task queue (its pid is in a poller's identity).
import { readdirSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { config } from '../../src/config.ts';
import { namespace, nativeEndpoints } from './topology.ts';

// A CommonJS module whose namespaces Node's ESM loader cannot name: reach them through its default export.
const { temporal } = proto;

export function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

export function redisPong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => (socket.destroy(), resolve(ok));
    socket.setTimeout(2_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Pids in process group `pgid` (Linux /proc): `npm start` is the group's leader, node its child. */
export function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** Identities (`pid@host`) of the workers polling the delivery task queue for workflow tasks. */
export async function workflowPollers(): Promise<string[]> {
  const connection = await Connection.connect({ address: nativeEndpoints.temporal, connectTimeout: 2_000 }).catch(() => undefined);
  if (!connection) return [];
  try {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace: namespace.name,
      taskQueue: { name: config.temporal.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return (pollers ?? []).map((p) => p.identity ?? '');
  } catch {
    return [];
  } finally {
    await connection.close();
  }
}

/** True when a process of the group polls the task queue. */
export function polling(pgid: number, identities: string[]): boolean {
  const pids = new Set(groupPids(pgid));
  return identities.some((identity) => pids.has(Number(identity.split('@')[0])));
}
