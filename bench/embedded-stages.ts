// Where the other workspace's event-to-arrival goes, read from the service's own tables after a run
// (the stopped service's PGlite data directory in bench/embedded-burst.ts; the PostgreSQL database
// in bench/webhook-side.ts's burst case), since the service records each step's time:
//   occurredAt (the PATCH's transaction) → the Delivery row (the relay took the event and wrote
//   its deliveries) → Event.relayedAt (the relay signalled the subscription's run) → the first
//   attempt's attemptedAt (the run claimed it and the signing activity began) → the receiver's
//   first arrival (TLS, the request and the answer's headers).
import { PGlite } from '@electric-sql/pglite';
import path from 'node:path';
import { percentile } from './percentile.ts';

export interface StageTimes {
  /** Events counted (those with a first attempt). */
  n: number;
  /** Per stage: p50 / p95 in ms. */
  stages: Record<StageName, { p50: number; p95: number }>;
}
export const stageNames = ['to delivery row', 'to relayed', 'to first attempt', 'to arrival'] as const;
export type StageName = (typeof stageNames)[number];

/**
 * The stages of the events to the subscription whose URL ends in `hookPath`, occurred within
 * [from, to] (wall ms); `arrivals` is the receiver's first arrival per event id.
 */
export async function readStages(dataDir: string, hookPath: string, from: number, to: number, arrivals: Map<string, { firstAt: number }>): Promise<StageTimes> {
  const db = new PGlite(path.join(dataDir, 'pglite'));
  try {
    return await stagesWith(async (sql, params) => (await db.query<StageRow>(sql, params)).rows, hookPath, from, to, arrivals);
  } finally {
    await db.close();
  }
}

export interface StageRow {
  id: string;
  occurred: number;
  created: number;
  relayed: number | null;
  attempted: number | null;
}

/** The same from any database client: `query` runs one statement with $1… parameters. */
export async function stagesWith(
  query: (sql: string, params: unknown[]) => Promise<StageRow[]>,
  hookPath: string,
  from: number,
  to: number,
  arrivals: Map<string, { firstAt: number }>,
): Promise<StageTimes> {
  const rows = await query(
    `SELECT e.id,
            extract(epoch FROM e."occurredAt") * 1000 AS occurred,
            extract(epoch FROM d."createdAt") * 1000 AS created,
            extract(epoch FROM e."relayedAt") * 1000 AS relayed,
            extract(epoch FROM min(a."attemptedAt")) * 1000 AS attempted
       FROM "Event" e
       JOIN "Delivery" d ON d."eventId" = e.id
       JOIN "WebhookSubscription" s ON s.id = d."subscriptionId"
       LEFT JOIN "DeliveryAttempt" a ON a."deliveryId" = d.id
      WHERE s.url LIKE '%' || $1 AND e."occurredAt" BETWEEN (to_timestamp($2 / 1000.0) AT TIME ZONE 'UTC') AND (to_timestamp($3 / 1000.0) AT TIME ZONE 'UTC')
      GROUP BY e.id, d."createdAt"`,
    [hookPath, from, to],
  );
  const done = rows.filter((r) => r.relayed !== null && r.attempted !== null && arrivals.has(r.id));
  const spans: Record<StageName, number[]> = { 'to delivery row': [], 'to relayed': [], 'to first attempt': [], 'to arrival': [] };
  for (const r of done) {
    const [occurred, created, relayed, attempted] = [r.occurred, r.created, r.relayed!, r.attempted!].map(Number) as [number, number, number, number];
    spans['to delivery row'].push(created - occurred);
    spans['to relayed'].push(relayed - created);
    spans['to first attempt'].push(attempted - relayed);
    spans['to arrival'].push(arrivals.get(r.id)!.firstAt - attempted);
  }
  const stat = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { p50: Math.round(percentile(sorted, 50)), p95: Math.round(percentile(sorted, 95)) };
  };
  return { n: done.length, stages: Object.fromEntries(stageNames.map((s) => [s, stat(spans[s])])) as StageTimes['stages'] };
}

/** `p50 / p95` of each stage, for a report's table row. */
export const stageCells = (t: StageTimes | undefined) => stageNames.map((st) => (t && t.n ? `${t.stages[st].p50.toLocaleString('en-US')} / ${t.stages[st].p95.toLocaleString('en-US')}` : 'n/a'));
