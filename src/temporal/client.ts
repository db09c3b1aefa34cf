import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { config } from '../config.ts';
import { AppError } from '../errors/errors.ts';
import { temporalClientInterceptors } from '../tracing/temporal.ts';
import { onResetForTests } from '../reset-for-tests.ts';
import { closedGuard, type ClosedGuard } from './closed-guard.ts';

const RESOURCE_EXHAUSTED = 8;

/**
 * A wake-up (signal-with-start) that reaches a run while the server writes its completion is
 * refused ("workflow is closing", as out of a resource) and goes through once the run has ended,
 * starting the next run: the client tries again after this (then 1.7 times longer each time),
 * not after the SDK's 1.4–2 s for a server out of resources, which held a subscription's next
 * event that long (event-to-attempt p50 of about 500 ms at a steady 30 events/s). Cost: a few
 * more calls while a run ends. (test/temporal/client-retry.test.ts)
 */
export const CLOSING_RETRY_MS = 20;

/**
 * The first retry's delay of a call the server refused (the SDK's defaults otherwise: 100 ms, and
 * 1 s when the server is out of a resource). A signal to a run whose completion the server is
 * writing is refused as out of a resource ("workflow is closing"), yet it goes through a moment
 * later: the SDK's 1.4–2 s back-off held the subscription's next wake-up that long
 * (CLOSING_RETRY_MS).
 */
export function firstRetryMs(status: { code: number; details?: string }): number {
  if (status.code !== RESOURCE_EXHAUSTED) return 100;
  return /workflow is closing/i.test(status.details ?? '') ? CLOSING_RETRY_MS : 1_000;
}

/**
 * A Client whose connection opens on first use (so creating it never fails or blocks at
 * startup). Close it with `client.connection.close()`.
 */
function connectTemporal(address: string, namespace: string): { client: Client; guard: ClosedGuard } {
  const retry = makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ initialIntervalMs: firstRetryMs }));
  // After the retry interceptor: a retry whose timer fires once the connection is closed ends CANCELLED.
  const guard = closedGuard();
  const connection = Connection.lazy({ address, interceptors: [retry, guard.interceptor] });
  return { client: new Client({ connection, namespace, interceptors: temporalClientInterceptors() }), guard };
}

let shared: { client: Client; taskQueue: string; guard?: ClosedGuard } | undefined;

/**
 * The process's Temporal client for the API (resume, re-send) and the outbox relay. `npm start`
 * sets it once it knows the address (its own dev server or TEMPORAL_ADDRESS); otherwise the
 * first use connects to TEMPORAL_ADDRESS.
 */
export function useTemporal(address: string, taskQueue = config.temporal.taskQueue): { client: Client; taskQueue: string } {
  const { client, guard } = connectTemporal(address, config.temporal.namespace);
  shared = { client, taskQueue, guard };
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
  s?.guard?.close();
  await s?.client.connection.close();
}

/** Readiness: the process's Temporal server answers (a cheap call, 2 s at most). */
export async function temporalAnswers(): Promise<void> {
  const { connection } = temporal().client;
  await connection.withDeadline(Date.now() + 2_000, () => connection.workflowService.getSystemInfo({}));
}

// A test file left its client set (src/reset-for-tests.ts): the next one connects to its own server.
onResetForTests(closeTemporal);
