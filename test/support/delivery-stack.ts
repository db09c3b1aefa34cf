// The delivery stack of the webhook tests: an HTTPS receiver with its own CA, a Temporal server
// and a worker running the real delivery activities against the database, and, on a dev server,
// the outbox relay that starts deliveries for new events. Built once here, stopped in reverse.
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { NativeConnection } from '@temporalio/worker';
import { closeTemporal, useTemporal } from '../../src/temporal/client.ts';
import { startOutboxRelay } from '../../src/webhooks/outbox-relay.ts';
import { startWorker } from '../../src/worker.ts';
import { createWorker } from '../../workflows/worker.ts';
import { createDeliveryActivities, type DeliveryActivityDeps } from '../../workflows/delivery/activities.ts';
import { createRecoverActivities } from '../../workflows/recover/activities.ts';
import { createTestCa, startReceiver, type Receiver, type TestCa } from '../webhooks/receiver.ts';
import { ensureMigrated } from './fixtures.ts';
import { createDeliveryTimeSkippingEnv, startTestDevServer, uniqueId, type TestDevServer } from './temporal.ts';

export interface DeliveryStackOptions {
  /** Also the recovery workflow and its activities (workflows/index.ts). */
  recover?: boolean;
  /** Dependencies of the delivery activities besides the receiver's CA (mailer, timeoutMs, …). */
  activities?: DeliveryActivityDeps;
  /** The worker's activity slots (the SDK's default otherwise). */
  activitySlots?: number;
}

interface Stack {
  receiver: Receiver;
  tls: TestCa;
  /** The task queue the worker polls. */
  taskQueue: string;
  stop(): Promise<void>;
}

type Stop = () => Promise<unknown>;

/** Runs the steps; when one fails, stops what the others started and rethrows. */
async function build<T>(start: (stops: Stop[]) => Promise<T>): Promise<T & { stop(): Promise<void> }> {
  const stops: Stop[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    return { ...(await start(stops)), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function runWorker(
  stops: Stop[],
  temporal: { connection: NativeConnection; namespace: string },
  taskQueue: string,
  deps: DeliveryActivityDeps,
  { recover, activitySlots }: DeliveryStackOptions,
) {
  const worker = await createWorker({
    connection: temporal.connection,
    namespace: temporal.namespace,
    taskQueue,
    workflowsPath: fileURLToPath(new URL(recover ? '../../workflows/index.ts' : '../../workflows/delivery/workflows.ts', import.meta.url)),
    ...(activitySlots ? { maxConcurrentActivityTaskExecutions: activitySlots } : {}),
    activities: { ...createDeliveryActivities(deps), ...(recover ? createRecoverActivities() : {}) },
  });
  const running = worker.run();
  stops.push(async () => {
    worker.shutdown();
    await running;
  });
}

async function startReceiverWithCa(stops: Stop[]) {
  const tls = createTestCa();
  const receiver = await startReceiver(tls);
  stops.push(() => receiver.close());
  return { tls, receiver };
}

/**
 * On the time-skipping server (timers fire at once): the activities log with its clock and
 * signal waiting deliveries through its client. Tests start deliveries themselves.
 */
export function startTimeSkippingDeliveryStack(options: DeliveryStackOptions = {}): Promise<Stack & { env: TestWorkflowEnvironment }> {
  return build(async (stops) => {
    const { tls, receiver } = await startReceiverWithCa(stops);
    const env = await createDeliveryTimeSkippingEnv();
    stops.push(() => env.teardown());
    const taskQueue = uniqueId('deliveries');
    const deps = { allowPrivateTargets: true, tls: { ca: tls.ca }, clock: async () => new Date(await env.currentTimeMs()), client: env.client, mailer: null, ...options.activities };
    await runWorker(stops, { connection: env.nativeConnection, namespace: env.namespace ?? 'default' }, taskQueue, deps, options);
    return { tls, receiver, env, taskQueue };
  });
}

export interface DevServerDeliveryStackOptions extends DeliveryStackOptions {
  /** The outbox relay, starting the deliveries of new events as the service does. */
  relay?: boolean;
  /** The service's own worker (src/worker.ts: its bundle, interceptors and every activity) instead of one made here. */
  serviceWorker?: boolean;
}

/**
 * On a real Temporal dev server, which is the service's Temporal for the test file (useTemporal):
 * the API's re-sends and recoveries start workflows there.
 */
export function startDevServerDeliveryStack(
  options: DevServerDeliveryStackOptions = {},
): Promise<Stack & { dev: TestDevServer; client: Client }> {
  return build(async (stops) => {
    const { tls, receiver } = await startReceiverWithCa(stops);
    const dev = await startTestDevServer();
    stops.push(() => dev.teardown());
    const { client, taskQueue } = useTemporal(dev.address, options.serviceWorker ? undefined : uniqueId('deliveries'));
    stops.push(closeTemporal);
    const deps = { allowPrivateTargets: true, tls: { ca: tls.ca }, mailer: null, ...options.activities };
    if (options.serviceWorker) {
      const worker = await startWorker(dev.address, deps);
      stops.push(async () => {
        worker.worker.shutdown();
        await worker.running;
        await worker.connection.close();
      });
    } else {
      await runWorker(stops, { connection: dev.nativeConnection, namespace: dev.namespace }, taskQueue, deps, options);
    }
    if (options.relay) {
      await ensureMigrated(); // before the relay looks at the outbox
      const relay = startOutboxRelay({ client, taskQueue, pollMs: 100 });
      stops.push(() => relay.stop());
    }
    return { tls, receiver, dev, client, taskQueue };
  });
}
