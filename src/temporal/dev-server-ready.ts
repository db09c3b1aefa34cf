// When a dev server is ready: its port free before the start, then answering with its namespace
// and search attributes registered.
import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';

export function isPortFree(host: string, port: number): Promise<boolean> {
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

export async function waitUntilReady(opts: {
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
