// The delivery run's own state and its rules: the in-flight bound (AIMD on 429/503), the rate
// (GCRA) and the receiver's Retry-After. Pure functions of the state and the workflow's clock, so
// a replay computes the same; the state travels through continue-as-new. No Node built-ins:
// workflow code imports this.

import { FAST_ANSWER_MS, PIPELINE_DEPTH } from './constants.ts';
import type { RunRef } from './search-attributes.ts';

/** A delivery run's input: its subscription, and its state when it continued as new. */
export interface RunInput extends RunRef {
  state?: RunState;
}

export interface RunState {
  /** The bound in force (AIMD); null: the subscription's maxInFlight. */
  bound: number | null;
  /** 2xx answers since the bound last rose or fell. */
  successes: number;
  /** Epoch ms before which no attempt starts (a receiver's Retry-After). */
  retryAfterUntil: number;
  /** The rate's theoretical arrival time (GCRA), epoch ms. */
  rateTat: number;
  /** The last batch's answers were all 2xx within FAST_ANSWER_MS: the next batch may be deep. (Absent in runs started before it.) */
  fast?: boolean;
  /** The subscription's maxInFlight that `bound` was found under (null: none seen yet). */
  boundFor: number | null;
}

export const initialRunState = (): RunState => ({ bound: null, successes: 0, retryAfterUntil: 0, rateTat: 0, boundFor: null });

/** What the run reads of its subscription at each claim. */
export interface SubscriptionSettings {
  maxInFlight: number;
  ratePerSecond: number | null;
  strict: boolean;
}

/** The bound in force: the AIMD bound within the subscription's maxInFlight; 1 when strictly ordered. */
export function boundInForce(state: RunState, s: SubscriptionSettings): number {
  if (s.strict) return 1;
  return Math.max(1, Math.min(s.maxInFlight, state.bound ?? s.maxInFlight));
}

/**
 * The state under the subscription's settings as a claim read them: a new maxInFlight starts the
 * bound afresh from it (as the API shows it from the moment it was saved), whatever AIMD had made
 * of the old one.
 */
export function followSettings(state: RunState, s: SubscriptionSettings): RunState {
  if (state.boundFor === s.maxInFlight) return state;
  return { ...state, bound: state.boundFor === null ? state.bound : null, successes: state.boundFor === null ? state.successes : 0, boundFor: s.maxInFlight };
}

/**
 * How many rounds of its bound the next batch may hold: PIPELINE_DEPTH for a receiver that answered
 * the last batch fast and well, else one (always one when strictly ordered).
 */
export function depthOf(state: RunState, s: SubscriptionSettings): number {
  return !s.strict && state.fast === true ? PIPELINE_DEPTH : 1;
}

export interface BatchAnswers {
  /** Attempts recorded, and how many of them were 2xx. */
  attempted?: number;
  succeeded: number;
  overloaded: boolean;
  retryAfterUntil: number | null;
  /** The slowest answer of the batch, ms (null or absent: none, or a run recorded before it). */
  slowestMs?: number | null;
}

/**
 * How a batch's answers move the bound: one halving per batch with a 429/503, +1 per bound's worth
 * of 2xx; and whether the next batch may be deep (every answer a 2xx within FAST_ANSWER_MS).
 */
export function afterBatch(state: RunState, s: SubscriptionSettings, answers: BatchAnswers): RunState {
  const bound = boundInForce(state, s);
  const attempted = answers.attempted ?? 0;
  const fast = attempted === 0 ? state.fast : answers.succeeded === attempted && answers.slowestMs != null && answers.slowestMs <= FAST_ANSWER_MS;
  const next = { ...state, retryAfterUntil: Math.max(state.retryAfterUntil, answers.retryAfterUntil ?? 0), ...(fast === undefined ? {} : { fast }) };
  if (answers.overloaded) return { ...next, bound: Math.max(1, Math.floor(bound / 2)), successes: 0, fast: false };
  const successes = state.successes + answers.succeeded;
  if (state.bound === null || successes < bound) return { ...next, successes };
  const raised = bound + 1;
  return { ...next, bound: raised >= s.maxInFlight ? null : raised, successes: 0 };
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
