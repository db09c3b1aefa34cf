// The Temporal worker of this service: one task queue, every workflow domain.
import { Client } from '@temporalio/client';
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { config } from './config.ts';
import { supervise } from './supervise.ts';
import { createWorker } from './temporal/worker.ts';
import { prebuiltWorkflowBundle, workflowInterceptorModules, workflowsPath } from './temporal/workflow-bundle.ts';
import { createDeliveryActivities, type DeliveryActivityDeps } from './webhooks/delivery/activities.ts';
import { BATCH_HEARTBEAT_MS } from './webhooks/delivery/constants.ts';
import { createRecoverActivities } from './webhooks/log/recover.activities.ts';
import { createRetentionActivities } from './retention/retention.activities.ts';
import { createTicketBulkActivities } from './jobs/ticket-bulk.activities.ts';
import { temporalClientInterceptors, temporalWorkerOptions } from './tracing/temporal.ts';
import { Starting } from './http/health.ts';

/**
 * How this worker's slots are shared (the delivery engine: src/webhooks/README.md):
 * - Activity slots: a delivery run sends its batches through one `sendBatch` activity at a time,
 *   which holds one slot while its requests (at most the subscription's effectiveInFlight, 10 by default,
 *   WEBHOOK_MAX_IN_FLIGHT_LIMIT at most) wait on the network; a workspace holds at most its cap
 *   (WEBHOOK_WORKSPACE_MAX_IN_FLIGHT) of attempts. 400 leave room for many busy subscriptions.
 * - Workflow-task slots: tasks are short (a claim is a local activity: one transaction); 100 keep
 *   a backlog of starts and signals moving without letting workflow code starve the activities.
 * - Polls: workflow and activity tasks are polled by pollers of their own, so neither waits behind
 *   the other; a run's tasks mostly come on its worker's sticky queue, hence the ratio.
 * - Cache: a busy run stays cached between its tasks (a cached workflow takes ~140 KiB of RSS).
 * - Heartbeats: a batch heartbeats every BATCH_HEARTBEAT_MS and is given up after
 *   BATCH_HEARTBEAT_TIMEOUT without one. The SDK would send them to the server only every 0.8 × that
 *   timeout (12 of 15 s), so a delay of 3 s on a busy machine would have the batch given to a new
 *   attempt while this one still sends; at most every BATCH_HEARTBEAT_MS leaves 12 s to spare.
 */
const DELIVERY_CONCURRENCY = {
  maxCachedWorkflows: 500,
  maxConcurrentWorkflowTaskExecutions: 100,
  maxConcurrentActivityTaskExecutions: 400,
  maxConcurrentWorkflowTaskPolls: 10,
  maxConcurrentActivityTaskPolls: 10,
  nonStickyToStickyPollRatio: 0.5,
  maxHeartbeatThrottleInterval: BATCH_HEARTBEAT_MS,
};

let runtimeInstalled = false;

/** `deliveryDeps`: tests hand in their receiver's CA. */
export async function startWorker(address: string, deliveryDeps?: DeliveryActivityDeps): Promise<{ worker: Worker; running: Promise<void>; connection: NativeConnection }> {
  if (!runtimeInstalled) {
    // The SDK logs every poller start at info level; keep the console for what matters. Its own
    // worker metrics have their own Prometheus listener, set before any NativeConnection exists.
    const bindAddress = config.temporal.metricsAddress;
    try {
      Runtime.install({
        logger: new DefaultLogger(config.logLevel === 'debug' ? 'DEBUG' : 'WARN'),
        ...(bindAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress } } } } : {}),
      });
    } catch (err) {
      // One Runtime per process: one set up before this (a test kit's, an embedding program's) is kept.
      if (!(err instanceof IllegalStateError)) throw err;
    }
    runtimeInstalled = true;
  }
  const connection = await NativeConnection.connect({ address });
  // A batch that ends wakes the runs of its workspace that wait for room in the cap (src/webhooks/delivery/wake.ts).
  const client = new Client({ connection, namespace: config.temporal.namespace, interceptors: temporalClientInterceptors() });
  const worker = await createWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowsPath,
    workflowBundle: prebuiltWorkflowBundle(),
    workflowInterceptorModules,
    activities: { ...createDeliveryActivities({ client, ...deliveryDeps }), ...createRecoverActivities(), ...createRetentionActivities(), ...createTicketBulkActivities() },
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
 * outbox meanwhile. `onConnected` runs after each (re)connection (idempotent set-up).
 */
export function superviseWorker(address: string, onConnected: () => Promise<void>): { stop(): Promise<void>; polling(): Promise<void> } {
  let current: Awaited<ReturnType<typeof startWorker>> | undefined;
  /** Until the first start has run (or failed), readiness says `starting` rather than `failing`. */
  let firstStartEnded = false;
  const supervisor = supervise({
    async run({ signal, healthy }) {
      try {
        current = await startWorker(address);
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
