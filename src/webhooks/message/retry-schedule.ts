// A subscription's retry schedule (docs/integrators/webhooks.md, "Retry schedules"): the default
// seven attempts (src/webhooks/message/schedule.ts), or a shorter list of delays the subscription
// asked for. "Shorter" means: at most the default's six delays, each at least the operator's
// minimum (WEBHOOK_RETRY_MIN_DELAY_SECONDS) and at most the default's longest (24 h), adding up
// to at most the default's span (34 h 36 min). The delivery run's sendBatch reads the schedule
// from the subscription's row at each failure, so a change applies from a delivery's next failure on.
import { z } from 'zod';
import { config } from '../../config.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './schedule.ts';

export const DEFAULT_DELAYS_SECONDS: readonly number[] = RETRY_DELAYS_MS.map((ms) => ms / 1000);
/** The most delays (retries) a schedule may have: the default's. */
export const MAX_RETRY_DELAYS = MAX_ATTEMPTS - 1;
/** The longest single delay: the default's longest. */
const MAX_RETRY_DELAY_SECONDS = Math.max(...DEFAULT_DELAYS_SECONDS);
/** The most a schedule's delays may add up to: the default's span. */
export const MAX_RETRY_SPAN_SECONDS = DEFAULT_DELAYS_SECONDS.reduce((a, b) => a + b, 0);

export interface RetrySchedule {
  delaysSeconds: number[];
}

/** The schedule in force, as the API shows it. */
export interface RetryScheduleView extends RetrySchedule {
  maxAttempts: number;
  spanSeconds: number;
  /** False: the default schedule. */
  custom: boolean;
}

export const RETRY_SCHEDULE_NOTE =
  `Shortens the retry schedule: \`delaysSeconds\` are the waits after each failed attempt (each ±10% jitter), so n delays make n + 1 attempts; \`[]\` makes one attempt and no retry. ` +
  `At most ${MAX_RETRY_DELAYS} delays, each at least the service’s minimum (WEBHOOK_RETRY_MIN_DELAY_SECONDS, 60 by default) and at most ${MAX_RETRY_DELAY_SECONDS}, ` +
  `adding up to at most ${MAX_RETRY_SPAN_SECONDS} (the default’s span): validation_failed otherwise. Absent or null: the default (${DEFAULT_DELAYS_SECONDS.join(', ')}). ` +
  'A change applies to waiting deliveries from their next failure on.';

/** The input member `retrySchedule`: its shape bounds here (in the OpenAPI document), the operator's minimum and the span checked at the call. */
export const retryScheduleInput = z
  .strictObject({
    delaysSeconds: z.array(z.int().min(1).max(MAX_RETRY_DELAY_SECONDS)).max(MAX_RETRY_DELAYS).describe('Seconds to wait after each failed attempt but the last'),
  })
  .superRefine((s, ctx) => {
    const floor = config.webhooks.retryMinDelaySeconds;
    s.delaysSeconds.forEach((d, i) => {
      if (d < floor) ctx.addIssue({ code: 'custom', path: ['delaysSeconds', i], message: `must be at least ${floor} seconds (this service's minimum)` });
    });
    const span = s.delaysSeconds.reduce((a, b) => a + b, 0);
    if (span > MAX_RETRY_SPAN_SECONDS) ctx.addIssue({ code: 'custom', path: ['delaysSeconds'], message: `add up to ${span} seconds: at most ${MAX_RETRY_SPAN_SECONDS} (the default schedule's span)` });
  })
  .meta({ examples: [{ delaysSeconds: [60, 300] }, { delaysSeconds: [] }] })
  .nullable()
  .optional()
  .describe(RETRY_SCHEDULE_NOTE);

/** The delays stored on a subscription's row (its `retrySchedule` column), or null for the default; anything unreadable is the default. */
function storedDelays(stored: unknown): number[] | null {
  const value = typeof stored === 'string' ? safeJson(stored) : stored;
  const delays = (value as { delaysSeconds?: unknown } | null)?.delaysSeconds;
  if (!Array.isArray(delays) || delays.length > MAX_RETRY_DELAYS || !delays.every((d) => Number.isInteger(d) && d > 0)) return null;
  return delays as number[];
}

/** The delays in force (ms), for the delivery activities. */
export const retryDelaysMs = (stored: unknown): readonly number[] => storedDelays(stored)?.map((s) => s * 1000) ?? RETRY_DELAYS_MS;

export function retryScheduleView(stored: unknown): RetryScheduleView {
  const custom = storedDelays(stored);
  const delaysSeconds = custom ?? [...DEFAULT_DELAYS_SECONDS];
  return { delaysSeconds, maxAttempts: delaysSeconds.length + 1, spanSeconds: delaysSeconds.reduce((a, b) => a + b, 0), custom: custom !== null };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}
