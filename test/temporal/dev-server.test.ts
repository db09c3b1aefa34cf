// startDevServer: persistence across restarts on one SQLite file, and no orphaned servers.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { deliverySearchAttributes, startDevServer, type DevServer } from '../../src/temporal/dev-server.ts';
import { uniqueId } from '../support/temporal.ts';
import { freePort } from '../support/http.ts';

const devServerModule = fileURLToPath(new URL('../../src/temporal/dev-server.ts', import.meta.url));
const tsxLoader = fileURLToPath(new URL('../../node_modules/tsx/dist/esm/index.mjs', import.meta.url));

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitForPortClosed(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await portAccepts(port))) return true;
    await sleep(200);
  }
  return false;
}

async function withClient<T>(server: DevServer, fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: server.address });
  try {
    return await fn(new Client({ connection, namespace: server.namespace }));
  } finally {
    await connection.close();
  }
}

describe('startDevServer', () => {
  let dir: string;
  const running: DevServer[] = [];

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'temporal-dev-server-test-'));
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.stop()));
  }, 60_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps workflows across a restart on the same SQLite file', { timeout: 90_000 }, async () => {
    const dbFile = path.join(dir, 'restart', 'temporal.sqlite');
    const port = await freePort();
    const uiPort = await freePort();
    const workflowId = uniqueId('survivor');

    const first = await startDevServer({ dbFile, port, uiPort });
    running.push(first);
    expect(first.address).toBe(`127.0.0.1:${port}`);
    expect(first.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
    // No worker polls this queue: the workflow stays running, which is what must survive.
    const runId = await withClient(first, async (client) => {
      const handle = await client.workflow.start('helloWorkflow', {
        args: ['Ada'],
        taskQueue: uniqueId('nobody-polls'),
        workflowId,
      });
      return handle.firstExecutionRunId;
    });

    await first.stop();
    expect(await portAccepts(port)).toBe(false);

    const second = await startDevServer({ dbFile, port, uiPort });
    running.push(second);
    await withClient(second, async (client) => {
      const description = await client.workflow.getHandle(workflowId).describe();
      expect(description.runId).toBe(runId);
      expect(description.status.name).toBe('RUNNING');
      expect(description.type).toBe('helloWorkflow');

      const { customAttributes } = await client.connection.operatorService.listSearchAttributes({
        namespace: second.namespace,
      });
      expect(Object.keys(customAttributes ?? {})).toEqual(
        expect.arrayContaining(Object.keys(deliverySearchAttributes)),
      );
    });
  });

  it('refuses a port that is already taken instead of probing the other server', { timeout: 60_000 }, async () => {
    const first = await startDevServer({ port: await freePort() });
    running.push(first);
    const busyPort = Number(first.address.split(':')[1]);
    await expect(startDevServer({ port: busyPort })).rejects.toThrow(/already in use/);
  });

  it('reports a server that exits during startup, with its log', { timeout: 60_000 }, async () => {
    // An invalid pragma makes the CLI exit at once.
    const start = startDevServer({
      port: await freePort(),
      dbFile: path.join(dir, 'bad', 'temporal.sqlite'),
      searchAttributes: { Broken: 'NoSuchType' as 'Keyword' },
    });
    await expect(start).rejects.toThrow(/did not start \(exited with code [1-9]/);
    await expect(start).rejects.toThrow(/invalid search attribute value type "NoSuchType"/);
  });

  it('does not leave the server running when its parent is killed', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const script = path.join(dir, 'parent.mts');
    writeFileSync(
      script,
      [
        `import { startDevServer } from ${JSON.stringify(devServerModule)};`,
        `await startDevServer({ port: ${port} });`,
        `console.log('ready');`,
        `setInterval(() => {}, 1000);`,
      ].join('\n'),
    );
    const parent = spawn(process.execPath, ['--import', tsxLoader, script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => parent.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        parent.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) resolve();
        });
        parent.once('exit', (code) => reject(new Error(`parent exited early with ${code}`)));
      });
      expect(await portAccepts(port)).toBe(true);

      parent.kill('SIGKILL'); // no exit hooks run: only the watchdog can stop the server
      await exited;
      expect(await waitForPortClosed(port, 20_000)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
