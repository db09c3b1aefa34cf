// The Temporal worker of this service: one task queue, every workflow domain.
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { config } from './config.ts';
import { createWorker } from '../workflows/worker.ts';
import { createHelloActivities } from '../workflows/hello/activities.ts';
import { createDeliveryActivities } from '../workflows/delivery/activities.ts';
import { createRetentionActivities } from '../workflows/retention/activities.ts';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

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
  });
  return { worker, connection, running: worker.run() };
}
