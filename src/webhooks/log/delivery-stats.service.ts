// A subscription's delivery statistics over a period (docs/integrators/webhooks.md, "Statistics"): its
// attempts by outcome, the success rate, duration percentiles and a series of UTC buckets.
import { AppError } from '../../errors/errors.ts';
import type { Principal } from '../../access/principal.ts';
import { visibleBoards, webhookService } from '../subscriptions/webhook.service.ts';
import { attemptStats, type StatsWindow } from './delivery-stats.repository.ts';

const HOUR = 3600;
const DAY = 24 * HOUR;

/** Each period: its bucket and how many buckets, the last being the current (still running) one. */
const STATS_PERIODS = {
  '24h': { bucket: 'hour', bucketSeconds: HOUR, buckets: 24 },
  '7d': { bucket: 'day', bucketSeconds: DAY, buckets: 7 },
  '30d': { bucket: 'day', bucketSeconds: DAY, buckets: 30 },
} as const;
type StatsPeriod = keyof typeof STATS_PERIODS;
export const STATS_PERIOD_NAMES = Object.keys(STATS_PERIODS) as StatsPeriod[];
export const DEFAULT_STATS_PERIOD: StatsPeriod = '24h';

export interface DeliveryStats {
  subscriptionId: string;
  period: StatsPeriod;
  bucket: 'hour' | 'day';
  from: Date;
  to: Date;
  attempts: number;
  succeeded: number;
  failed: number;
  successRate: number | null;
  durationMs: { p50: number | null; p95: number | null; p99: number | null };
  series: { start: Date; attempts: number; succeeded: number; failed: number }[];
}

/** Whole UTC buckets ending with the one that holds `now` (the epoch starts at a UTC midnight). Exported for the scale benchmark, which calls attemptStats with it. */
function statsWindow(period: StatsPeriod, now: Date): StatsWindow {
  const { bucketSeconds, buckets } = STATS_PERIODS[period];
  const step = bucketSeconds * 1000;
  const currentStart = Math.floor(now.getTime() / step) * step;
  return { from: new Date(currentStart - (buckets - 1) * step), to: new Date(currentStart + step), bucketSeconds };
}

function parsePeriod(period: string | null | undefined): StatsPeriod {
  const p = period ?? DEFAULT_STATS_PERIOD;
  if (p in STATS_PERIODS) return p as StatsPeriod;
  throw new AppError('validation_failed', 'The period is not valid', {
    errors: [{ path: '/period', message: `must be one of ${STATS_PERIOD_NAMES.join(', ')}` }],
  });
}

export const deliveryStatsService = {
  async stats(p: Principal, subscriptionId: string, period: string | null | undefined): Promise<DeliveryStats> {
    // Cheap refusals first: the period, then the role and the subscription (404 when not visible).
    const name = parsePeriod(period);
    const s = await webhookService.get(p, subscriptionId);
    const window = statsWindow(name, new Date());
    const found = await attemptStats(s.id, window, visibleBoards(p));
    const byStart = new Map(found.buckets.map((b) => [b.start.getTime(), b]));
    const step = window.bucketSeconds * 1000;
    const series = Array.from({ length: STATS_PERIODS[name].buckets }, (_, i) => {
      const start = new Date(window.from.getTime() + i * step);
      const b = byStart.get(start.getTime());
      return { start, attempts: b?.attempts ?? 0, succeeded: b?.succeeded ?? 0, failed: b ? b.attempts - b.succeeded : 0 };
    });
    return {
      subscriptionId: s.id,
      period: name,
      bucket: STATS_PERIODS[name].bucket,
      from: window.from,
      to: window.to,
      attempts: found.attempts,
      succeeded: found.succeeded,
      failed: found.attempts - found.succeeded,
      successRate: found.attempts ? found.succeeded / found.attempts : null,
      durationMs: { p50: found.p50, p95: found.p95, p99: found.p99 },
      series,
    };
  },
};
