// The delivery run's signals and query, shared by the workflow, the relay and the activities that
// wake runs, and the workflows that ask it for manual attempts. No Node built-ins: workflow code imports this.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { RunWait } from './wait.ts';

/** New deliveries are in the run's queue, it was resumed, or room opened in the workspace's cap: the run claims again. */
export const wakeSignal = defineSignal('wake');

/** What the run is doing, for operators (Temporal Web's query tab) and tests. */
export interface RunView {
  subscriptionId: string;
  inFlight: number;
  /** The bound in force (run-state.ts effectiveInFlight: AIMD within maxInFlight; 1 when strictly ordered). */
  effectiveInFlight: number;
  /** What it waits for now: nothing (idle or sending), the next attempt's time, its bound, the rate, a Retry-After, the workspace's cap. */
  waitingFor: RunWait;
  /** When it looks again, epoch ms (null: only when woken or a batch ends). */
  until: number | null;
  retryAfterUntil: number | null;
  /** Deliveries this run has sent (all batches, all attempts). */
  attempted: number;
  /** Batches this run has sent (it continues as new after BATCHES_PER_RUN). */
  batches: number;
}
export const stateQuery = defineQuery<RunView>('state');

/** What a manual attempt came to: `held` (the subscription is paused) and `cancelled` without an attempt mean nothing was sent. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'held' | 'cancelled';

export interface AttemptResult {
  outcome: AttemptOutcome;
  attemptId?: string;
  attempt?: number;
  httpStatus?: number | null;
}

/** A manual request answered: the workflows that asked (a re-send's, a recovery's) and what came of it. */
export interface ManualAnswer {
  deliveryId: string;
  requesters: string[];
  result: AttemptResult;
}

/** The delivery run tells a workflow that asked for manual attempts what came of them (manual.ts). */
export const manualAnswerSignal = defineSignal<[{ deliveryId: string; result: AttemptResult }[]]>('manualAnswer');
