// The delivery run's own state and its rules: the bound in force (`effectiveInFlight`, AIMD on
// 429/503 and on no answer at all), the rate (GCRA) and the receiver's Retry-After. Pure functions of the state and the workflow's clock, so
// a replay computes the same; the state travels through continue-as-new. No Node built-ins:
// workflow code imports this.

import { FAST_ANSWER_MS, PIPELINE_DEPTH } from './constants.ts';
import type { RunRef } from './search-attributes.ts';

/**
 * Why a run stops claiming, said by its claim or a batch's answers: its subscription was paused (its
 * deliveries are held until resumed) or deleted or disabled (its deliveries are cancelled).
 */
export type RunStop = 'paused' | 'cancelled';
/** How a run ends: `idle` (its queue is empty), or stopped by its subscription (RunStop). */
export type RunEnd = 'idle' | RunStop;

/** A delivery run's input: its subscription, and its state when it continued as new. */
export interface RunInput extends RunRef {
  state?: RunState;
}

export interface RunState {
  /** The bound in force as AIMD left it (429/503 and attempts with no answer at all halve it, 2xx raise it back); null: not lowered. In force: `effectiveInFlight(settings, this)`. */
  effectiveInFlight: number | null;
  /** 2xx answers since effectiveInFlight last rose or fell. */
  successes: number;
  /** Epoch ms before which no attempt starts (a receiver's Retry-After). */
  retryAfterUntil: number;
  /** The rate's theoretical arrival time (GCRA), epoch ms. */
  rateTat: number;
  /** The last batch's answers were all 2xx within FAST_ANSWER_MS: the next batch may be deep. */
  fast: boolean;
  /** The subscription's maxInFlight that `effectiveInFlight` was found under (null: none seen yet). */
  maxInFlightSeen: number | null;
}

export const initialRunState = (): RunState => ({ effectiveInFlight: null, successes: 0, retryAfterUntil: 0, rateTat: 0, fast: false, maxInFlightSeen: null });

/** What the run reads of its subscription at each claim. */
export interface SubscriptionSettings {
  /** Within the operator's limit (WEBHOOK_MAX_IN_FLIGHT_LIMIT). */
  maxInFlight: number;
  ratePerSecond: number | null;
  strict: boolean;
}

/** A subscription row's settings as the run applies them: its maxInFlight within the operator's limit. */
export function subscriptionSettings(row: { maxInFlight: number; ratePerSecond: number | null; ordering: string }, maxInFlightLimit: number): SubscriptionSettings {
  return { maxInFlight: Math.min(row.maxInFlight, maxInFlightLimit), ratePerSecond: row.ratePerSecond, strict: row.ordering === 'strict' };
}

/**
 * The bound in force, the one rule wherever it is used or shown (the run, the API's
 * `effectiveInFlight`, the backlog): what AIMD left of it (`lowered`, null: not lowered) within the
 * subscription's maxInFlight, at least 1; 1 when strictly ordered.
 */
export function effectiveInFlight(s: SubscriptionSettings, lowered: number | null): number {
  if (s.strict) return 1;
  return Math.max(1, Math.min(s.maxInFlight, lowered ?? s.maxInFlight));
}

/**
 * The state under the subscription's settings as a claim read them: a new maxInFlight starts the
 * bound afresh from it (as the API shows it from the moment it was saved), whatever AIMD had made
 * of the old one.
 */
export function followSettings(state: RunState, s: SubscriptionSettings): RunState {
  if (state.maxInFlightSeen === s.maxInFlight) return state;
  const first = state.maxInFlightSeen === null;
  return { ...state, effectiveInFlight: first ? state.effectiveInFlight : null, successes: first ? state.successes : 0, maxInFlightSeen: s.maxInFlight };
}

/**
 * How many rounds of its bound the next batch may hold: PIPELINE_DEPTH for a receiver that answered
 * the last batch fast and well, else one (always one when strictly ordered).
 */
export function depthOf(state: RunState, s: SubscriptionSettings): number {
  return !s.strict && state.fast ? PIPELINE_DEPTH : 1;
}

export interface BatchAnswers {
  /** Attempts recorded, and how many of them were 2xx. */
  attempted: number;
  succeeded: number;
  overloaded: boolean;
  /** An attempt that got no answer at all (timed out, refused, reset; a broker's retry). Absent in histories recorded before it. */
  unanswered?: boolean;
  retryAfterUntil: number | null;
  /** The slowest answer of the batch, ms (null: none). */
  slowestMs: number | null;
}

/**
 * How a batch's answers move the bound: one halving per batch with a 429/503 or with an attempt
 * that got no answer at all (a time-out is the strongest back-pressure a receiver gives: one that
 * hangs or is down sees the attempts already open fail, the bound come down to 1 with them, and
 * then one attempt at a time, so that the 20 failures in a row that pause it take 20 time-outs
 * rather than two rounds of parallel ones); +1 per bound's worth of 2xx; and whether the next
 * batch may be deep (every answer a 2xx within FAST_ANSWER_MS).
 */
export function afterBatch(state: RunState, s: SubscriptionSettings, answers: BatchAnswers): RunState {
  const bound = effectiveInFlight(s, state.effectiveInFlight);
  const fast = answers.attempted === 0 ? state.fast : answers.succeeded === answers.attempted && answers.slowestMs !== null && answers.slowestMs <= FAST_ANSWER_MS;
  const next = { ...state, retryAfterUntil: Math.max(state.retryAfterUntil, answers.retryAfterUntil ?? 0), fast };
  if (answers.unanswered || answers.overloaded) return { ...next, effectiveInFlight: Math.max(1, Math.floor(bound / 2)), successes: 0, fast: false };
  const successes = state.successes + answers.succeeded;
  if (state.effectiveInFlight === null || successes < bound) return { ...next, successes };
  const raised = bound + 1;
  return { ...next, effectiveInFlight: raised >= s.maxInFlight ? null : raised, successes: 0 };
}

/** A second's worth of starts may go at once (at least one). */
const burstOf = (rate: number) => Math.max(1, Math.floor(rate));

/**
 * How many attempts may start at `now` within the rate, and when the next may start if none can.
 * Without a rate: any number.
 */
export function rateAllowance(state: RunState, ratePerSecond: number | null, now: number): { starts: number; nextAt: number | null } {
  if (!ratePerSecond) return { starts: Number.MAX_SAFE_INTEGER, nextAt: null };
  const interval = 1000 / ratePerSecond;
  const burst = burstOf(ratePerSecond);
  const tat = Math.max(state.rateTat, now - burst * interval);
  const starts = Math.min(burst, Math.floor((now - tat) / interval));
  return starts > 0 ? { starts, nextAt: null } : { starts: 0, nextAt: Math.ceil(tat + interval) };
}

/** The state after `n` starts at `now`. */
export function spendRate(state: RunState, ratePerSecond: number | null, now: number, n: number): RunState {
  if (!ratePerSecond || n === 0) return state;
  const interval = 1000 / ratePerSecond;
  const tat = Math.max(state.rateTat, now - burstOf(ratePerSecond) * interval);
  return { ...state, rateTat: tat + n * interval };
}
