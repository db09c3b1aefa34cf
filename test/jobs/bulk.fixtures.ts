// The bulk jobs' stack of the tests: a Temporal dev server that is the service's Temporal for the
// file (`useTemporal`, so the API's accepts start workflows there), and workers running the real
// workflow bundle with the real bulk activities against the database; a test may start and stop
// its own workers (the restart test).
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Worker } from '@temporalio/worker';
import { closeTemporal, useTemporal } from '../../src/temporal/client.ts';
import { createWorker } from '../../src/temporal/worker.ts';
import { createTicketBulkActivities, type TicketBulkActivityDeps } from '../../src/jobs/ticket-bulk.activities.ts';
import { api, ensureMigrated } from '../support/fixtures.ts';
import { startTestDevServer, uniqueId, type TestDevServer } from '../support/temporal.ts';
import { workflowBundleOf } from '../support/workflow-bundles.ts';

const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

export interface BulkStack {
  temporal: TestDevServer;
  taskQueue: string;
  /** A worker on the stack's task queue, running until `stop()`. */
  startWorker(deps?: TicketBulkActivityDeps): Promise<{ worker: Worker; stop(): Promise<void> }>;
  stop(): Promise<void>;
}

export async function startBulkStack(queue: string): Promise<BulkStack> {
  await ensureMigrated();
  const temporal = await startTestDevServer();
  const taskQueue = uniqueId(queue);
  useTemporal(temporal.address, taskQueue);
  const running: (() => Promise<void>)[] = [];
  return {
    temporal,
    taskQueue,
    async startWorker(deps) {
      const worker = await createWorker({
        connection: temporal.nativeConnection,
        namespace: temporal.namespace,
        taskQueue,
        workflowsPath,
        workflowBundle: await workflowBundleOf(workflowsPath),
        activities: createTicketBulkActivities(deps),
        shutdownGraceTime: '100 ms',
      });
      const run = worker.run();
      let stopped: Promise<void> | undefined;
      const stop = () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        return (stopped ??= run.catch(() => undefined));
      };
      running.push(stop);
      return { worker, stop };
    },
    async stop() {
      for (const stop of running.reverse()) await stop().catch(() => undefined);
      await closeTemporal().catch(() => undefined);
      await temporal.teardown();
    },
  };
}

/** Polls GET /jobs/{id} until the job has finished; returns its last answer. */
export async function finishedJob(key: string, id: string, timeout = 60_000) {
  let last: Awaited<ReturnType<typeof api>> | undefined;
  await expect
    .poll(
      async () => {
        last = await api('GET', `/jobs/${id}`, { key });
        return last.body?.status;
      },
      { timeout, interval: 200 },
    )
    .toMatch(/^(completed|failed)$/);
  return last!;
}
