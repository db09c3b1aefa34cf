// The retry schedule of decisions.md: attempts at 0, +1 min, +5 min, +30 min, +2 h, +8 h and
// +24 h, each delay counted from the failure before it (as Svix and Standard Webhooks do).
// No Node built-ins: workflow code imports this.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** RETRY_DELAYS_MS[n - 1] is the wait after failed attempt n. */
export const RETRY_DELAYS_MS = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 8 * HOUR, 24 * HOUR] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** When attempt `attempt` (1-based) failed at `failedAt`, the next one is due then; null after the last. */
export function nextAttemptTime(attempt: number, failedAt: Date): Date | null {
  const delay = RETRY_DELAYS_MS[attempt - 1];
  return delay === undefined ? null : new Date(failedAt.getTime() + delay);
}
