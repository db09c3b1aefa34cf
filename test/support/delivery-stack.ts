// The webhook delivery stack of the tests, built in one call and stopped in reverse: a Temporal
// server, a worker running the delivery workflows with the real activities against the database
// and, on a dev server, the outbox relay that starts the deliveries of new events as the service
// does. The worker is the test's own (its task queue, slots and activity dependencies) or the
// service's (src/worker.ts: its prebuilt bundle, workflow interceptors and task queue). The
// receivers are the test's (test/webhooks/receiver.ts); the activities trust the CA given and
// allow loopback targets, and anything else they get (a clock, a client, a mailer, timeouts) the
// test says.
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { NativeConnection } from '@temporalio/worker';
import { closeTemporal, useTemporal } from '../../src/temporal/client.ts';
import { startOutboxRelay } from '../../src/webhooks/fanout/outbox-relay.ts';
import { startWorker } from '../../src/worker.ts';
import { createWorker } from '../../src/temporal/worker.ts';
import { createDeliveryActivities, type DeliveryActivities, type DeliveryActivityDeps } from '../../src/webhooks/delivery/activities.ts';
import { createRecoverActivities } from '../../src/webhooks/log/recover.activities.ts';
import { BATCH_HEARTBEAT_MS } from '../../src/webhooks/delivery/constants.ts';
import { afterAll, beforeAll } from 'vitest';
import { createTestCa, startReceiver, type Receiver, type TestCa } from '../webhooks/receiver.ts';
import { ensureMigrated } from './fixtures.ts';
import { createDeliveryTimeSkippingEnv, startTestDevServer, uniqueId, type TestDevServer } from './temporal.ts';
import { workflowBundleOf } from './workflow-bundles.ts';

export interface DeliveryStackOptions<Server> {
  /** The task queue's name before its unique suffix. */
  queue: string;
  /** Time-skipping: this exact task queue instead (a stack started again where another was). */
  exactQueue?: string;
  /** The CA of the receivers' certificates. */
  tls: TestCa;
  /** What else the delivery activities get (the CA given, loopback targets and, time-skipping, its clock come with the stack). */
  activities?: (server: Server) => DeliveryActivityDeps;
  /** Also the recovery workflow and its activities (workflows/index.ts). */
  recover?: boolean;
  /** The worker's activity slots (the SDK's default otherwise). */
  activitySlots?: number;
  /** On a dev server: the outbox relay too (default true); without it the test starts what it needs. */
  relay?: boolean;
  /** Wraps the real delivery activities, for a test that acts at a chosen point of one (they still run). */
  wrap?: (activities: DeliveryActivities) => DeliveryActivities;
}

interface DeliveryStack {
  taskQueue: string;
  stop: () => Promise<void>;
}

type Stop = () => Promise<unknown>;

/** Runs `start`, which pushes how to stop what it started; when it fails, stops that and rethrows. */
async function build<T>(start: (stops: Stop[]) => Promise<T>): Promise<T & { stop: () => Promise<void> }> {
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

async function runWorker<Server>(
  stops: Stop[],
  temporal: { connection: NativeConnection; namespace: string },
  taskQueue: string,
  activities: DeliveryActivityDeps,
  { recover, activitySlots, wrap }: DeliveryStackOptions<Server>,
) {
  const workflowsPath = fileURLToPath(new URL(recover ? '../../workflows/index.ts' : '../../src/webhooks/delivery/workflows.ts', import.meta.url));
  const worker = await createWorker({
    connection: temporal.connection,
    namespace: temporal.namespace,
    taskQueue,
    workflowsPath,
    workflowBundle: await workflowBundleOf(workflowsPath),
    ...(activitySlots ? { maxConcurrentActivityTaskExecutions: activitySlots } : {}),
    // As the service's worker (src/worker.ts): a held batch's heartbeats reach the server every
    // BATCH_HEARTBEAT_MS, not 12 s apart, which can pass the 15 s time-out.
    maxHeartbeatThrottleInterval: BATCH_HEARTBEAT_MS,
    activities: { ...(wrap ?? ((a) => a))(createDeliveryActivities(activities)), ...(recover ? createRecoverActivities() : {}) },
  });
  const running = worker.run();
  stops.push(async () => {
    worker.shutdown();
    await running;
  });
}

/**
 * On the time-skipping server (timers fire as soon as nothing else is pending); the activities
 * log with its clock. Tests start the deliveries themselves (fixtures' `wakeRunOf`).
 */
export function startTimeSkippingDeliveryStack(
  options: DeliveryStackOptions<TestWorkflowEnvironment>,
): Promise<DeliveryStack & { env: TestWorkflowEnvironment }> {
  return build(async (stops) => {
    await ensureMigrated(); // the activities' database, migrated within the hook's timeout rather than a test's
    const env = await createDeliveryTimeSkippingEnv();
    stops.push(() => env.teardown());
    const taskQueue = options.exactQueue ?? uniqueId(options.queue);
    const activities = {
      allowPrivateTargets: true,
      tls: { ca: options.tls.ca },
      taskQueue,
      clock: async () => new Date(await env.currentTimeMs()),
      ...options.activities?.(env),
    };
    await runWorker(stops, { connection: env.nativeConnection, namespace: env.namespace ?? 'default' }, taskQueue, activities, options);
    return { env, taskQueue };
  });
}

/** What a file's time-skipping delivery stack gives its tests, once its beforeAll has run. */
export interface TimeSkippingDeliveryFile {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  receiver: Receiver;
  tls: TestCa;
}

/**
 * The time-skipping stack for a whole file, with a receiver on a throwaway CA: started before its
 * tests, stopped after them. Its members are set once the file's beforeAll has run.
 */
export function useTimeSkippingDeliveryStack(options: Omit<DeliveryStackOptions<TestWorkflowEnvironment>, 'tls'>): TimeSkippingDeliveryFile {
  const file = {} as TimeSkippingDeliveryFile;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    file.tls = createTestCa();
    file.receiver = await startReceiver(file.tls);
    const stack = await startTimeSkippingDeliveryStack({ ...options, tls: file.tls });
    Object.assign(file, { env: stack.env, taskQueue: stack.taskQueue });
    stop = () => stack.stop();
  }, 120_000);
  afterAll(async () => {
    await stop?.();
    await file.receiver?.close();
  }, 60_000);
  return file;
}

/**
 * A dev server that is the service's Temporal for the test file (`useTemporal`), so the API's
 * re-sends and recoveries start workflows there, and (unless `relay` is false) the outbox relay
 * that starts the deliveries of new events on `taskQueue`.
 */
async function onDevServer(stops: Stop[], taskQueue: string | undefined, relay = true) {
  const temporal = await startTestDevServer();
  stops.push(() => temporal.teardown());
  await ensureMigrated(); // before the relay looks at the outbox
  const { client, taskQueue: queue } = useTemporal(temporal.address, taskQueue);
  stops.push(closeTemporal);
  if (relay) {
    const running = startOutboxRelay({ client, taskQueue: queue, pollMs: 100 });
    stops.push(() => running.stop());
  }
  return { temporal, client, taskQueue: queue };
}

/** On a Temporal dev server (`onDevServer`), with the test's own worker. */
export function startDevServerDeliveryStack(
  options: DeliveryStackOptions<TestDevServer>,
): Promise<DeliveryStack & { temporal: TestDevServer; client: Client }> {
  return build(async (stops) => {
    const stack = await onDevServer(stops, uniqueId(options.queue), options.relay);
    const activities = { allowPrivateTargets: true, tls: { ca: options.tls.ca }, taskQueue: stack.taskQueue, ...options.activities?.(stack.temporal) };
    await runWorker(stops, { connection: stack.temporal.nativeConnection, namespace: stack.temporal.namespace }, stack.taskQueue, activities, options);
    return stack;
  });
}

/**
 * On a Temporal dev server (`onDevServer`), with the service's own worker (src/worker.ts) on the
 * configured task queue, sending without a mailer: what the service runs, for tests of what that
 * worker adds (its bundle's workflow interceptors).
 */
export function startServiceDeliveryStack(options: { tls: TestCa }): Promise<DeliveryStack & { temporal: TestDevServer; client: Client }> {
  return build(async (stops) => {
    const stack = await onDevServer(stops, undefined);
    const worker = await startWorker(stack.temporal.address, { allowPrivateTargets: true, tls: { ca: options.tls.ca }, mailer: null });
    stops.push(async () => {
      worker.worker.shutdown();
      await worker.running;
      await worker.connection.close();
    });
    return stack;
  });
}
