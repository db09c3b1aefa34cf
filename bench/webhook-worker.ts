// The worker side of `npm run bench:webhooks`, one child process driven over IPC (so its RSS and
// CPU are its own, as in a deployment). Two jobs:
//   - `ceiling`: a worker for the empty workflow of workflows/bench/ on its own task queue, and N
//     starters in this process that start and await empty workflows as fast as they can;
//   - `deliver`: the service's real worker (src/worker.ts: every workflow domain, the real
//     delivery activities) and the real outbox relay, exactly as `npm start` runs them.
// Its environment comes from bench/webhooks.ts: DATABASE_URL, TEMPORAL_ADDRESS,
// WEBHOOK_ALLOW_PRIVATE_TARGETS=true and NODE_EXTRA_CA_CERTS (the receivers' CA).
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { closeTemporal, useTemporal } from '../src/temporal/client.ts';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { config } from '../src/config.ts';
import { db } from '../src/db/db.ts';
import { startWorker } from '../src/worker.ts';
import { EVENT_OUTBOX_CHANNEL, startOutboxRelay, type OutboxRelay } from '../src/webhooks/fanout/outbox-relay.ts';
import { createWorker } from '../src/temporal/worker.ts';
import type { emptyWorkflow } from '../workflows/bench/workflows.ts';

const benchWorkflowsPath = fileURLToPath(new URL('../workflows/bench/workflows.ts', import.meta.url));
const address = config.temporal.address!;
const namespace = config.temporal.namespace;

export type WorkerCommand =
  | { cmd: 'ceiling'; count: number; starters: number; eager: boolean; taskQueue: string }
  | { cmd: 'deliver' }
  | { cmd: 'stop' };

export interface CeilingReport {
  completed: number;
  seconds: number;
  eagerlyStarted: number;
}

const stops: (() => Promise<void>)[] = [];

async function ceiling({ count, starters, eager, taskQueue }: Extract<WorkerCommand, { cmd: 'ceiling' }>): Promise<CeilingReport> {
  const connection = await NativeConnection.connect({ address });
  // Eager start needs the client on the worker's own (native) connection.
  const client = new Client({ connection, namespace });
  const worker: Worker = await createWorker({ connection, namespace, taskQueue, workflowsPath: benchWorkflowsPath, activities: {} });
  const running = worker.run();
  const runOne = async (id: string) => {
    const handle = await client.workflow.start<typeof emptyWorkflow>('emptyWorkflow', { taskQueue, workflowId: id, requestEagerStart: eager });
    await handle.result();
    return handle.eagerlyStarted;
  };
  // Warm-up: the bundle loads, the pollers and sticky queue settle.
  await Promise.all(Array.from({ length: starters }, (_, i) => runOne(`${taskQueue}-warm-${i}`)));

  let next = 0;
  let eagerlyStarted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: starters }, async () => {
      while (next < count) {
        const n = next++;
        if (await runOne(`${taskQueue}-${n}`)) eagerlyStarted += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  worker.shutdown();
  await running;
  await connection.close();
  return { completed: count, seconds, eagerlyStarted };
}

// The service's worker runs from the start (as in `npm start`, it idles beside the ceiling's
// worker); `deliver` adds the relay.
const service = await startWorker(address);
stops.push(async () => {
  service.worker.shutdown();
  await service.running.catch(() => undefined);
  await service.connection.close();
});

async function deliver(): Promise<void> {
  // As src/main.ts: the relay has the process's own client (src/temporal/client.ts, its retry policy included).
  const { client, taskQueue } = useTemporal(address);
  const relay: OutboxRelay = startOutboxRelay({
    client,
    taskQueue,
    listen: (onEvents) => db.listen(EVENT_OUTBOX_CHANNEL, onEvents),
  });
  stops.push(async () => {
    await relay.stop();
    await closeTemporal();
  });
}

process.on('message', (message: WorkerCommand) => {
  void (async () => {
    try {
      if (message.cmd === 'ceiling') process.send!({ ok: true, report: await ceiling(message) });
      else if (message.cmd === 'deliver') {
        await deliver();
        process.send!({ ok: true });
      } else {
        for (const stop of [...stops].reverse()) await stop();
        await db.close();
        process.send!({ ok: true }, () => process.exit(0));
      }
    } catch (err) {
      process.send!({ ok: false, error: (err as Error).stack ?? String(err) });
    }
  })();
});
process.send!({ ok: true, ready: true });
