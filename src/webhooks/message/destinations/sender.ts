// What every broker sender does, whatever the broker (docs/integrators/destinations.md): takes a
// batch's messages in event order, sends them in the broker's batch call where it has one, and
// says of each whether the broker acknowledged it. A message counts as delivered only on the
// broker's acknowledgement; an error is one of the engine's outcomes (retryable, throttled,
// permanent), worded for the delivery log. The delivery run decides everything else (bound, rate,
// retries, pause), as for HTTPS: a sender is not a second engine.
import type { BrokerDestination, BrokerType } from './settings.ts';

/** One delivery's message: the signed body and the Standard Webhooks headers, as an HTTPS attempt sends them. */
export interface OutgoingMessage {
  deliveryId: string;
  eventId: string;
  eventType: string;
  /** What keeps a ticket's events in order: `ticket-<id>` for ticket events (Kafka's key, SQS FIFO's group); the event's id otherwise. */
  orderKey: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * - delivered: the broker acknowledged it.
 * - retry: not acknowledged (unreachable, timed out, a broker error that may pass): the next attempt per the schedule.
 * - throttled: the broker asks us to slow down: as a 429, the run halves its bound.
 * - permanent: it will never be accepted as configured (no such queue, access denied, bad credentials):
 *   as a 410, the subscription is disabled with a notice and what waits is cancelled.
 */
export type Verdict = 'delivered' | 'retry' | 'throttled' | 'permanent';

export interface BrokerOutcome {
  verdict: Verdict;
  /** The broker's acknowledgement, for the log (message id, partition and offset, stream sequence…). */
  ack?: string;
  /** What went wrong, in plain words (never a credential). */
  error?: string;
  durationMs: number;
}

export interface SendContext {
  subscriptionId: string;
  /** A call's time limit (DELIVERY_TIMEOUT_MS unless the worker says otherwise). */
  timeoutMs: number;
  workspaceId: number;
  /** Lifts the address rule and the TLS requirement (development and tests). */
  allowPrivateTargets: boolean;
}

export interface BrokerSender<T extends BrokerType = BrokerType> {
  /** The most messages one batch call takes. */
  readonly maxBatch: number;
  /**
   * Sends `messages` (at most maxBatch, in event order) and answers an outcome for each it sent, in
   * the same order. It may stop after a failure: the messages past its answers were not sent, and
   * go back to the queue without using an attempt.
   */
  send(destination: Extract<BrokerDestination, { type: T }>, messages: OutgoingMessage[], context: SendContext): Promise<BrokerOutcome[]>;
  /** Closes every connection it holds. */
  close(): Promise<void>;
}

/** The same outcome for every message of a batch call that failed as a whole. */
export const allOf = (messages: OutgoingMessage[], outcome: BrokerOutcome): BrokerOutcome[] => messages.map(() => ({ ...outcome }));

/** Milliseconds since `started` (performance.now()). */
export const since = (started: number) => Math.round(performance.now() - started);

/** The key that keeps a ticket's events together: `ticket-<id>` for ticket events, else the event's id. */
export function orderKeyOf(event: { id: string; type: string; payload: unknown }): string {
  const data = (event.payload as { data?: { id?: unknown } } | null)?.data;
  return event.type.startsWith('ticket.') && (typeof data?.id === 'number' || typeof data?.id === 'string') ? `ticket-${data.id}` : event.id;
}
