// Data access of a subscription's delivery statistics: ONE statement over the attempts of one
// subscription in a time window, served by the index on ("subscriptionId", "attemptedAt") that
// also holds "status" and "durationMs", so for a caller who sees every board it reads no table rows
// (docs/integrators/webhooks.md, "Statistics"); for one who does not, the events of the attempts too.
import { prisma } from '../../db/db.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { eventVisible } from '../../events/event.visibility.ts';

export interface StatsWindow {
  /** Start of the first bucket (inclusive). */
  from: Date;
  /** End of the last bucket (exclusive). */
  to: Date;
  bucketSeconds: number;
}

interface AttemptBucket {
  start: Date;
  attempts: number;
  succeeded: number;
}

interface AttemptStats {
  attempts: number;
  succeeded: number;
  /** Attempt durations in ms (percentile_cont, interpolated, to 0.1 ms); null when no attempt had a duration. */
  p50: number | null;
  p95: number | null;
  p99: number | null;
  /** The buckets that have attempts, in time order (empty ones are absent). */
  buckets: AttemptBucket[];
}

interface Row {
  bucket: Date | null;
  attempts: number | null;
  succeeded: number | null;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/**
 * Counts, success and duration percentiles of a subscription's attempts in [from, to), per bucket
 * and in total. Every row carries the window's percentiles; with no attempts there is one row
 * without a bucket. `boardIds`: the boards the caller sees (null: every board); only attempts at
 * events it may see count, as in the delivery log (eventVisible; this reads the events too).
 */
export async function attemptStats(subscriptionId: string, window: StatsWindow, boardIds: string[] | null = null): Promise<AttemptStats> {
  const from = window.from.toISOString();
  const to = window.to.toISOString();
  const rows = await prisma.$queryRaw<Row[]>`
    WITH a AS MATERIALIZED (
      SELECT date_bin(make_interval(secs => ${window.bucketSeconds}::int), "attemptedAt", ${from}::timestamp(3)) AS "bucket", "status", "durationMs"
      FROM "DeliveryAttempt"
      WHERE "subscriptionId" = ${subscriptionId} AND "attemptedAt" >= ${from}::timestamp(3) AND "attemptedAt" < ${to}::timestamp(3)
        ${boardIds ? Prisma.sql`AND EXISTS (SELECT 1 FROM "Event" e WHERE e."id" = "DeliveryAttempt"."eventId" AND ${eventVisible(boardIds)})` : Prisma.empty}
    ), p AS (
      SELECT percentile_cont(ARRAY[0.5, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY "durationMs") AS "q" FROM a
    ), b AS (
      SELECT "bucket", count(*)::int AS "attempts", (count(*) FILTER (WHERE "status" = 'succeeded'))::int AS "succeeded" FROM a GROUP BY "bucket"
    )
    SELECT b."bucket", b."attempts", b."succeeded",
           round(p."q"[1]::numeric, 1)::float8 AS "p50", round(p."q"[2]::numeric, 1)::float8 AS "p95", round(p."q"[3]::numeric, 1)::float8 AS "p99"
    FROM p LEFT JOIN b ON true
    ORDER BY b."bucket"`;
  const buckets = rows.filter((r) => r.bucket !== null).map((r) => ({ start: r.bucket!, attempts: r.attempts!, succeeded: r.succeeded! }));
  const first = rows[0];
  return {
    attempts: buckets.reduce((n, b) => n + b.attempts, 0),
    succeeded: buckets.reduce((n, b) => n + b.succeeded, 0),
    p50: first?.p50 ?? null,
    p95: first?.p95 ?? null,
    p99: first?.p99 ?? null,
    buckets,
  };
}
