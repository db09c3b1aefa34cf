// What every seed of the simulation shares, started once: the time-skipping Temporal server with
// one worker running the real delivery workflow and activities (through a thin wrapper that lets
// the seed record claims and batches and lose a batch's result: activities.ts is unchanged), the
// HTTPS receiver on loopback, the service's Temporal client (the API's resume starts runs with
// it) and the scheduler of interleaving points (src/webhooks/delivery/interleave.ts). Each seed
// then makes its own workspaces (harness.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import { activityInfo } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { useTemporal, closeTemporal } from '../../../src/temporal/client.ts';
import type { DeliveryActivities } from '../../../src/webhooks/delivery/activities.ts';
import { setInterleaveHook, type InterleavePoint } from '../../../src/webhooks/delivery/interleave.ts';
import { startTimeSkippingDeliveryStack } from '../../support/delivery-stack.ts';
import { createTestCa, startReceiver, type Receiver } from '../receiver.ts';
import type { DatabaseKind } from './model.ts';

/** The worker's workspace cap and bound limit: small, so that seeds reach them. */
export const WORKSPACE_CAP = 6;
export const MAX_IN_FLIGHT_LIMIT = 8;
/** The sender's time-out (real ms): a receiver that holds a request longer is answered "after the sender gave up". */
export const SENDER_TIMEOUT_MS = 600;

/** One attempt of one sendBatch activity, as the worker ran it. */
export interface BatchRecord {
  subscriptionId: string;
  token: string;
  attempt: number;
  /** Attempts it may have open at once, and the most its claim allowed (effectiveInFlight, not lowered). */
  width: number;
  allowed: number;
  deliveries: number;
  /** performance.now() when the attempt started, and when its real code ended (a zombie's runs on past its attempt). */
  start: number;
  end?: number;
  /** Its result was lost (the simulation killed it) or Temporal gave it up: its real code ran on as a zombie. */
  zombie: boolean;
  /** Where the simulation kills it, if it does. */
  kill: InterleavePoint | 'end' | null;
  /** Resolves the kill when the batch reaches that point. */
  reached?: () => void;
}

/** What a seed's run does when the worker calls an activity or passes a point. */
export interface SeedHooks {
  /** After the real claim committed; true: lose its result (the worker died after it). */
  claimed(input: Parameters<DeliveryActivities['claimDue']>[0], result: Awaited<ReturnType<DeliveryActivities['claimDue']>>): boolean;
  /** A batch attempt starts: the seed records it and says where to kill it. */
  batchStarted(record: BatchRecord): void;
  interleave(point: InterleavePoint, about: string, batch: BatchRecord | undefined): Promise<void> | void;
}

export interface SimulationStack {
  /** The current server (a new one after `restart`). */
  readonly env: TestWorkflowEnvironment;
  readonly taskQueue: string;
  receiver: Receiver;
  database: DatabaseKind;
  /** The seed being run (one at a time). */
  setSeed(hooks: SeedHooks | null): void;
  /**
   * A new time-skipping server and worker on the same task queue, the API's client pointed at it:
   * for when the server's clock stopped skipping (see harness.ts, restartEnvironment). What ran on
   * the old one is gone, as after the loss of a cluster's history; the database stays.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

class LostResult extends Error {
  override name = 'SimulatedWorkerDeath';
}

export async function startSimulationStack(): Promise<SimulationStack> {
  let seed: SeedHooks | null = null;
  const batchOf = new AsyncLocalStorage<BatchRecord>();
  const tls = createTestCa();
  const receiver = await startReceiver(tls);
  const wrap = (real: DeliveryActivities): DeliveryActivities => ({
    ...real,
    async claimDue(input) {
      const result = await real.claimDue(input);
      if (seed?.claimed(input, result)) throw new LostResult('the worker died after the claim committed');
      return result;
    },
    async sendBatch(input) {
      const record: BatchRecord = {
        subscriptionId: input.subscriptionId,
        token: input.token,
        attempt: activityInfo().attempt,
        width: input.width ?? input.deliveries.length,
        allowed: 0,
        deliveries: input.deliveries.length,
        start: performance.now(),
        zombie: false,
        kill: null,
      };
      seed?.batchStarted(record);
      const running = batchOf.run(record, () => real.sendBatch(input));
      void running.then(
        () => void (record.end = performance.now()),
        () => void (record.end = performance.now()),
      );
      if (!record.kill) return running;
      const killed = new Promise<'killed'>((resolve) => (record.reached = () => resolve('killed')));
      const first = await Promise.race([running, killed]);
      if (first !== 'killed' && record.kill !== 'end') return first;
      // The worker died: Temporal never hears of this attempt's result and tries again; its code
      // runs on (unless it had ended: then only its result is lost).
      record.zombie = record.kill !== 'end';
      running.catch(() => undefined);
      throw new LostResult(`the worker died at ${record.kill}`);
    },
  });
  const start = (exactQueue?: string) =>
    startTimeSkippingDeliveryStack({
      queue: 'simulation',
      exactQueue,
      tls,
      activities: (env) => ({ client: env.client, mailer: null, workspaceCap: WORKSPACE_CAP, maxInFlightLimit: MAX_IN_FLIGHT_LIMIT, timeoutMs: SENDER_TIMEOUT_MS }),
      wrap,
    });
  let stack = await start();
  let ignoringClosedChannels = false;
  // The API's resume starts runs through the service's client, on the simulation's task queue.
  useTemporal(stack.env.address, stack.taskQueue);
  setInterleaveHook((point, about) => seed?.interleave(point, about, batchOf.getStore()));
  return {
    get env() {
      return stack.env;
    },
    get taskQueue() {
      return stack.taskQueue;
    },
    receiver,
    database: process.env.DATABASE_URL ? 'postgres' : 'pglite',
    setSeed: (hooks) => void (seed = hooks),
    async restart() {
      // A call to the old server still retrying when its channel closes throws from a timer of
      // the client's retry loop (@temporalio/client grpc-retry), outside any promise: that one
      // error is the old server's, not the seed's.
      if (!ignoringClosedChannels) {
        ignoringClosedChannels = true;
        process.on('uncaughtException', (err) => {
          if (err?.message !== 'Channel has been shut down') throw err;
        });
      }
      await closeTemporal();
      await stack.stop();
      stack = await start(stack.taskQueue);
      useTemporal(stack.env.address, stack.taskQueue);
    },
    async stop() {
      setInterleaveHook(null);
      await closeTemporal();
      await stack.stop();
      await receiver.close();
    },
  };
}
