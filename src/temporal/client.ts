import { Client, Connection } from '@temporalio/client';
import { config } from '../config.ts';
import { AppError } from '../errors/errors.ts';
import { temporalClientInterceptors } from '../tracing/temporal.ts';
import { onResetForTests } from '../reset-for-tests.ts';

/**
 * A Client whose connection opens on first use (so creating it never fails or blocks at
 * startup). Close it with `client.connection.close()`.
 */
function connectTemporal(address: string, namespace: string): Client {
  return new Client({ connection: Connection.lazy({ address }), namespace, interceptors: temporalClientInterceptors() });
}

let shared: { client: Client; taskQueue: string } | undefined;

/**
 * The process's Temporal client for the API (resume, re-send) and the outbox relay. `npm start`
 * sets it once it knows the address (its own dev server or TEMPORAL_ADDRESS); otherwise the
 * first use connects to TEMPORAL_ADDRESS.
 */
export function useTemporal(address: string, taskQueue = config.temporal.taskQueue): { client: Client; taskQueue: string } {
  shared = { client: connectTemporal(address, config.temporal.namespace), taskQueue };
  return shared;
}

export function temporal(): { client: Client; taskQueue: string } {
  if (shared) return shared;
  if (config.temporal.address) return useTemporal(config.temporal.address);
  throw new AppError('service_unavailable', 'Webhook deliveries are not available: no Temporal server is configured');
}

export async function closeTemporal(): Promise<void> {
  const s = shared;
  shared = undefined;
  await s?.client.connection.close();
}

/** Readiness: the process's Temporal server answers (a cheap call, 2 s at most). */
export async function temporalAnswers(): Promise<void> {
  const { connection } = temporal().client;
  await connection.withDeadline(Date.now() + 2_000, () => connection.workflowService.getSystemInfo({}));
}

// A test file left its client set (src/reset-for-tests.ts): the next one connects to its own server.
onResetForTests(closeTemporal);
