// Temporal servers for tests, on the binaries scripts/provision.sh provided (global-setup.ts
// sets TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH), never the SDK's download.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
// The default import: a CommonJS module whose names node's ESM loader cannot see (npm run simulate runs outside vitest).
import protos from '@temporalio/proto';
import { afterAll, beforeAll } from 'vitest';
import { deliverySearchAttributes, startDevServer, type DevServer } from '../../src/temporal/dev-server.ts';
import { provisioned } from './tools.ts';
import { freePort } from '../../scripts/free-port.ts';

const { temporal } = protos;

export const helloWorkflowsPath = fileURLToPath(new URL('../temporal/hello/workflows.ts', import.meta.url));

// Keep worker and bundler chatter (info level) out of test output; once per process.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // already installed or instantiated in this process
}

export interface ServicePorts {
  http: number;
  temporal: number;
  ui: number;
}

/** An early exit whose output says a port was taken: `onFreePorts` tries again with others. */
const portTaken = (output: string) => /EADDRINUSE|already in use/i.test(output);

/**
 * Starts something on free ports (HTTP, Temporal, Temporal Web). A port that `freePort` handed
 * out can be taken by another test file's process before ours binds it (a Temporal dev server
 * opens more ports than it is given), so when `start` rejects with an error whose message says a
 * port was taken, it is tried again on fresh ports, up to three times; any other error rejects.
 * Given `ports`, the first try uses them and a retry writes the fresh ones into that object.
 */
export async function onFreePorts<T>(start: (ports: ServicePorts) => Promise<T>, ports?: ServicePorts): Promise<T> {
  const fresh = async () => ({ http: await freePort(), temporal: await freePort(), ui: await freePort() });
  const current = ports ?? (await fresh());
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(current);
    } catch (err) {
      if (attempt >= 3 || !portTaken(String((err as Error)?.message ?? err))) throw err;
      Object.assign(current, await fresh());
    }
  }
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

export interface TestDevServer {
  server: DevServer;
  address: string;
  namespace: string;
  dbFile: string;
  client: Client;
  nativeConnection: NativeConnection;
  teardown(): Promise<void>;
}

/** A real dev server (SQLite in a temp dir, free loopback port, no UI) plus client and worker connections. */
/** `dynamicConfig`: values on top of the service's dev server's (devServerDynamicConfig). */
export async function startTestDevServer(options: { dynamicConfig?: Record<string, unknown> } = {}): Promise<TestDevServer> {
  const executable = { type: 'existing-path', path: provisioned('TEMPORAL_CLI_PATH') } as const;
  const dir = mkdtempSync(path.join(tmpdir(), 'temporal-dev-'));
  const dbFile = path.join(dir, 'temporal.sqlite');
  let server: DevServer | undefined;
  // A free port can be taken between probing and binding: retry with another.
  for (let attempt = 1; !server; attempt++) {
    try {
      server = await startDevServer({ executable, dbFile, port: await freePort(), dynamicConfig: options.dynamicConfig });
    } catch (err) {
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const connection = await Connection.connect({ address: server.address });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  const started = server;
  return {
    server: started,
    address: started.address,
    namespace: started.namespace,
    dbFile,
    client,
    nativeConnection,
    async teardown() {
      await nativeConnection.close().catch(() => undefined);
      await connection.close().catch(() => undefined);
      await started.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The time-skipping test server: timers fire as soon as nothing else is pending. */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const executable = { type: 'existing-path', path: provisioned('TEMPORAL_TEST_SERVER_PATH') } as const;
  return TestWorkflowEnvironment.createTimeSkipping({ server: { executable } });
}

/** The time-skipping server with the delivery search attributes the dev server registers at start (src/temporal/dev-server.ts). */
export async function createDeliveryTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const env = await createTimeSkippingEnv();
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(deliverySearchAttributes).map(([name, type]) => [
        name,
        { Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD }[type],
      ]),
    ),
  });
  return env;
}

/**
 * A Temporal server for the whole file: started before its tests (`start`, e.g. startTestDevServer
 * or createTimeSkippingEnv), torn down after them. Returns a getter for the tests to call.
 */
export function useTemporal<T extends { teardown(): Promise<void> }>(start: () => Promise<T>): () => T {
  let env: T | undefined;
  beforeAll(async () => {
    env = await start();
  }, 60_000);
  afterAll(async () => {
    await env?.teardown();
  }, 60_000);
  return () => {
    if (!env) throw new Error('the Temporal server of this file did not start (see beforeAll)');
    return env;
  };
}
