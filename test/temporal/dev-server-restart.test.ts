// startSupervisedDevServer: the dev server killed with SIGKILL comes back by itself on the same
// SQLite file and port, with its workflows; connections made before the kill (the API's client,
// a worker's native connection) work again without being recreated.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { startSupervisedDevServer } from '../../src/temporal/dev-server-supervised.ts';
import { createHelloActivities } from './hello/activities.ts';
import { helloWorkflow } from './hello/workflows.ts';
import { createWorker } from '../../src/temporal/worker.ts';
import { helloWorkflowsPath, uniqueId } from '../support/temporal.ts';
import { freePort } from '../support/http.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'temporal-supervised-'));
const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('supervised dev server', () => {
  it('restarts a killed server on the same file and port; old connections and a worker carry on', { timeout: 180_000 }, async () => {
    const logged: string[] = [];
    const record = (_fields: object, message: string) => void logged.push(message);
    const server = await startSupervisedDevServer({
      dbFile: path.join(dir, 'temporal.sqlite'),
      port: await freePort(),
      log: { info: record, warn: record },
    });
    cleanups.push(() => server.stop());
    const connection = Connection.lazy({ address: server.address });
    cleanups.push(() => connection.close());
    const client = new Client({ connection, namespace: server.namespace });
    const native = await NativeConnection.connect({ address: server.address });
    cleanups.push(() => native.close());

    const taskQueue = uniqueId('supervised');
    const worker = await createWorker({
      connection: native,
      namespace: server.namespace,
      taskQueue,
      workflowsPath: helloWorkflowsPath,
      activities: createHelloActivities({ greeting: 'Hi' }),
    });
    const running = worker.run();
    cleanups.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    });
    expect(await client.workflow.execute(helloWorkflow, { args: ['before'], taskQueue, workflowId: uniqueId('before') })).toBe('Hi, before!');
    // One that no worker serves: it must still be there, running, after the restart.
    const waiting = await client.workflow.start(helloWorkflow, { args: ['kept'], taskQueue: uniqueId('nobody'), workflowId: uniqueId('kept') });

    const killed = server.pid()!;
    process.kill(killed, 'SIGKILL');
    await expect.poll(() => server.pid() !== killed && logged.includes('Temporal dev server restarted'), { timeout: 90_000, interval: 200 }).toBe(true);
    expect(logged).toContain('Temporal dev server ended; restarting it');

    // The same client, the same worker: a new workflow completes, the old one survived.
    expect(await client.workflow.execute(helloWorkflow, { args: ['after'], taskQueue, workflowId: uniqueId('after') })).toBe('Hi, after!');
    const description = await waiting.describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.runId).toBe(waiting.firstExecutionRunId);
  });

});
