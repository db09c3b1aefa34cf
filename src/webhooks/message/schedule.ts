// The retry schedule (docs/integrators/webhooks.md, "Retries, pause and disable"): by default attempts at 0, +1 min, +5 min,
// +30 min, +2 h, +8 h and +24 h, each delay counted from the failure before it (as Svix and
// Standard Webhooks do), each with ±10% jitter so that a receiver that was down does not get its
// backlog's retries in the same second. A subscription may shorten it (its `retrySchedule`,
// src/webhooks/message/retry-schedule.ts): every function here takes the delays in force, the default's
// when none is given. A receiver's Retry-After may move the next attempt later, never beyond what
// remains of the schedule in force. No Node built-ins: workflow code imports this.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** RETRY_DELAYS_MS[n - 1] is the nominal wait after failed attempt n (the default schedule). */
export const RETRY_DELAYS_MS = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 8 * HOUR, 24 * HOUR] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Every retry delay is its nominal value ±10%. */
export const RETRY_JITTER = 0.1;

/** A schedule's delays (ms), the nominal wait after each failed attempt but the last. */
export type RetryDelays = readonly number[];

/** Attempts the schedule makes at most: one more than its delays. */
export const maxAttemptsOf = (delays: RetryDelays = RETRY_DELAYS_MS) => delays.length + 1;

/**
 * The nominal delay after failed attempt `attempt`, jittered by `random` (in [0, 1): the
 * workflow's Math.random, which Temporal's sandbox makes deterministic, so a replay draws the
 * same); undefined after the last attempt.
 */
export function jitteredDelay(attempt: number, random: number, delays: RetryDelays = RETRY_DELAYS_MS): number | undefined {
  const nominal = delays[attempt - 1];
  if (nominal === undefined) return undefined;
  return Math.round(nominal * (1 + (2 * random - 1) * RETRY_JITTER));
}

/** What the schedule has left after failed attempt `attempt`: the sum of the nominal delays still to come. */
export function remainingSpanMs(attempt: number, delays: RetryDelays = RETRY_DELAYS_MS): number {
  return delays.slice(attempt - 1).reduce((a, b) => a + b, 0);
}

/**
 * The wait after failed attempt `attempt`: its jittered delay, or the receiver's Retry-After when
 * that is later, capped at the schedule's remaining span (a receiver cannot stretch a delivery
 * beyond its schedule's meaning).
 */
export function retryDelay(
  attempt: number,
  jittered: number,
  retryAfterMs: number | null | undefined,
  delays: RetryDelays = RETRY_DELAYS_MS,
): { delayMs: number; retryAfterMs: number } {
  const asked = Math.min(retryAfterMs ?? 0, remainingSpanMs(attempt, delays));
  return asked > jittered ? { delayMs: asked, retryAfterMs: asked - jittered } : { delayMs: jittered, retryAfterMs: 0 };
}
