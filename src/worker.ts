// The Temporal worker of this service: one task queue, every workflow domain.
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { config } from './config.ts';
import { supervise } from './supervise.ts';
import { createWorker } from '../workflows/worker.ts';
import { prebuiltWorkflowBundle, workflowInterceptorModules, workflowsPath } from '../workflows/bundle.ts';
import { createDeliveryActivities, type DeliveryActivityDeps } from '../workflows/delivery/activities.ts';
import { createRecoverActivities } from '../workflows/recover/activities.ts';
import { createRetentionActivities } from '../workflows/retention/activities.ts';
import { temporalClientInterceptors, temporalWorkerOptions } from './tracing/temporal.ts';
import { Starting } from './http/health.ts';

/**
 * A delivery's attempt runs as a local activity inside its workflow task, so each delivery in
 * flight holds a task slot and a cache slot for up to the receiver's 10 s. The SDK sizes the cache
 * from the heap: 10 workflows under the 112 MB heap of `npm start`, with which 60 one-second
 * attempts ran at most 3 at once (60 s in all; with these settings all 60 at once, 1.6 s).
 * - Task slots: an eager start needs a free one when the relay asks (each of its two lanes has 48
 *   starts in flight), besides the deliveries running and the idle polls, which hold one each. A
 *   start that finds none goes through the task queue, which costs the server more work and the
 *   worker a poll; with 100 slots about 60% of the fan-out benchmark's starts were eager and it
 *   reached 72-83 deliveries/s, with 200 about 75% and 90/s.
 * - Polls: most deliveries finish within their first task, so nearly all polled work is new
 *   workflows on the normal queue, not the sticky one: 16 of the 20 pollers poll it (the SDK's
 *   default is 2 of 10, which left the worker idle with a backlog in the task queue).
 * A cached delivery workflow takes ~140 KiB of RSS; deliveries that finish leave the cache at once.
 */
const DELIVERY_CONCURRENCY = {
  maxCachedWorkflows: 250,
  maxConcurrentWorkflowTaskExecutions: 200,
  maxConcurrentLocalActivityExecutions: 200,
  maxConcurrentWorkflowTaskPolls: 20,
  nonStickyToStickyPollRatio: 0.8,
};

let runtimeInstalled = false;

/** `deliveryDeps`: tests hand in their receiver's CA. */
export async function startWorker(address: string, deliveryDeps?: DeliveryActivityDeps): Promise<{ worker: Worker; running: Promise<void>; connection: NativeConnection }> {
  if (!runtimeInstalled) {
    // The SDK logs every poller start at info level; keep the console for what matters. Its own
    // worker metrics have their own Prometheus listener, set before any NativeConnection exists.
    const bindAddress = config.temporal.metricsAddress;
    Runtime.install({
      logger: new DefaultLogger(config.logLevel === 'debug' ? 'DEBUG' : 'WARN'),
      ...(bindAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress } } } } : {}),
    });
    runtimeInstalled = true;
  }
  const connection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowsPath,
    workflowBundle: prebuiltWorkflowBundle(),
    workflowInterceptorModules,
    activities: { ...createDeliveryActivities(deliveryDeps), ...createRecoverActivities(), ...createRetentionActivities() },
    ...DELIVERY_CONCURRENCY,
    ...temporalWorkerOptions(),
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
 * outbox meanwhile. `onConnected` runs after each (re)connection (idempotent set-up);
 * `eagerClient()` is a client on the running worker's connection, for eager workflow starts.
 */
export function superviseWorker(
  address: string,
  onConnected: () => Promise<void>,
): { stop(): Promise<void>; eagerClient(): Client | undefined; polling(): Promise<void> } {
  let current: (Awaited<ReturnType<typeof startWorker>> & { client: Client }) | undefined;
  /** Until the first start has run (or failed), readiness says `starting` rather than `failing`. */
  let firstStartEnded = false;
  const supervisor = supervise({
    async run({ signal, healthy }) {
      try {
        const started = await startWorker(address);
        current = { ...started, client: new Client({ connection: started.connection, namespace: config.temporal.namespace, interceptors: temporalClientInterceptors() }) };
        if (signal.aborted) shutdown(current.worker);
        else await onConnected();
        healthy();
        await current.running;
      } finally {
        firstStartEnded = true;
        await current?.connection.close().catch(() => undefined);
        current = undefined;
      }
    },
    backoffMs: () => RETRY_MS,
    failed: 'Temporal worker not running; retrying',
    logEvery: 30,
    recovered: 'Temporal worker connected',
    fields: { address },
  });
  return {
    async stop() {
      if (current) shutdown(current.worker);
      await supervisor.stop();
    },
    eagerClient: () => (current?.worker.getState() === 'RUNNING' ? current.client : undefined),
    /**
     * Readiness: the worker runs and its connection reaches the server (a worker stays RUNNING
     * while its polls fail, so its state alone would not tell).
     */
    async polling() {
      const running = current?.worker.getState() === 'RUNNING' ? current : undefined;
      if (!running) throw firstStartEnded ? new Error('the worker is not running') : new Starting('the worker is starting');
      await running.connection.withDeadline(Date.now() + 2_000, () => running.connection.workflowService.getSystemInfo({}));
    },
  };
}
