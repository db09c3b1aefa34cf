// The retry schedule (docs/integrators/webhooks.md, "Retries, pause and disable"): attempts at 0, +1 min, +5 min, +30 min, +2 h, +8 h and
// +24 h, each delay counted from the failure before it (as Svix and Standard Webhooks do), each
// with ±10% jitter so that a receiver that was down does not get its backlog's retries in the
// same second. A receiver's Retry-After may move the next attempt later, never beyond what
// remains of the schedule. No Node built-ins: workflow code imports this.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** RETRY_DELAYS_MS[n - 1] is the nominal wait after failed attempt n. */
export const RETRY_DELAYS_MS = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 8 * HOUR, 24 * HOUR] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Every retry delay is its nominal value ±10%. */
export const RETRY_JITTER = 0.1;

/**
 * The nominal delay after failed attempt `attempt`, jittered by `random` (in [0, 1): the
 * workflow's Math.random, which Temporal's sandbox makes deterministic, so a replay draws the
 * same); undefined after the last attempt.
 */
export function jitteredDelay(attempt: number, random: number): number | undefined {
  const nominal = RETRY_DELAYS_MS[attempt - 1];
  if (nominal === undefined) return undefined;
  return Math.round(nominal * (1 + (2 * random - 1) * RETRY_JITTER));
}

/** What the schedule has left after failed attempt `attempt`: the sum of the nominal delays still to come. */
export function remainingSpanMs(attempt: number): number {
  return RETRY_DELAYS_MS.slice(attempt - 1).reduce((a, b) => a + b, 0);
}

/**
 * The wait after failed attempt `attempt`: its jittered delay, or the receiver's Retry-After when
 * that is later, capped at the schedule's remaining span (a receiver cannot stretch a delivery
 * beyond the seven attempts' meaning).
 */
export function retryDelay(attempt: number, jittered: number, retryAfterMs: number | null | undefined): { delayMs: number; retryAfterMs: number } {
  const asked = Math.min(retryAfterMs ?? 0, remainingSpanMs(attempt));
  return asked > jittered ? { delayMs: asked, retryAfterMs: asked - jittered } : { delayMs: jittered, retryAfterMs: 0 };
}
