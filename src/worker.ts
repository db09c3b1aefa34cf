// The Temporal worker of this service: one task queue, every workflow domain.
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { config } from './config.ts';
import { logger } from './logger.ts';
import { fromRoot } from './paths.ts';
import { createWorker } from '../workflows/worker.ts';
import { createHelloActivities } from '../workflows/hello/activities.ts';
import { createDeliveryActivities } from '../workflows/delivery/activities.ts';
import { createRetentionActivities } from '../workflows/retention/activities.ts';

export const workflowsPath = fromRoot('workflows', 'index.ts');

/**
 * A delivery's attempt runs as a local activity inside its workflow task, so each delivery in
 * flight holds a task slot and a cache slot for up to the receiver's 10 s. The SDK sizes the cache
 * from the heap: 10 workflows under the 112 MB heap of `npm start`, with which 60 one-second
 * attempts ran at most 3 at once (60 s in all; with these settings all 60 at once, 1.6 s). Room for
 * the relay's 64 concurrent starts (an eager start needs a free slot) and for retries; a cached
 * delivery workflow takes ~140 KiB of RSS.
 */
const DELIVERY_CONCURRENCY = { maxCachedWorkflows: 150, maxConcurrentWorkflowTaskExecutions: 100, maxConcurrentLocalActivityExecutions: 100 };

let runtimeInstalled = false;

export async function startWorker(address: string): Promise<{ worker: Worker; running: Promise<void>; connection: NativeConnection }> {
  if (!runtimeInstalled) {
    // The SDK logs every poller start at info level; keep the console for what matters.
    Runtime.install({ logger: new DefaultLogger(config.logLevel === 'debug' ? 'DEBUG' : 'WARN') });
    runtimeInstalled = true;
  }
  const connection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowsPath,
    activities: { ...createHelloActivities(), ...createDeliveryActivities(), ...createRetentionActivities() },
    ...DELIVERY_CONCURRENCY,
  });
  return { worker, connection, running: worker.run() };
}

const RETRY_MS = 2_000;

/** The SDK's own SIGINT/SIGTERM handler may already be draining the worker: shut down only a running one. */
function shutdown(worker: Worker) {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}

/**
 * Runs the worker and keeps it running: when Temporal is unreachable (at start or later) it tries
 * again every few seconds instead of taking the service down; the work waits in Temporal and the
 * outbox meanwhile. `onConnected` runs after each (re)connection (idempotent set-up).
 */
export function superviseWorker(address: string, onConnected: () => Promise<void>): { stop(): Promise<void> } {
  let stopping = false;
  let current: Awaited<ReturnType<typeof startWorker>> | undefined;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    let failures = 0;
    while (!stopping) {
      try {
        current = await startWorker(address);
        if (stopping) shutdown(current.worker);
        else await onConnected();
        if (failures) logger.info('Temporal worker connected');
        failures = 0;
        await current.running;
      } catch (err) {
        if (failures++ === 0 || failures % 30 === 0) logger.warn({ err, address }, 'Temporal worker not running; retrying');
      } finally {
        await current?.connection.close().catch(() => undefined);
        current = undefined;
      }
      if (!stopping) await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, RETRY_MS)));
    }
  })();
  return {
    async stop() {
      stopping = true;
      wake?.();
      if (current) shutdown(current.worker);
      await loop;
    },
  };
}
