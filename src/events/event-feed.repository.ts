// Data access of the events feed (GET /events): the outbox rows, read in the feed's order.
//
// The order is (txid, seq): the writing transaction's id, then the row's sequence number. `seq`
// alone is not an order in which rows become visible: a transaction can take a lower seq and
// commit after one with a higher seq. So only rows below the horizon are served: rows whose
// transaction id is below the oldest transaction still running (pg_snapshot_xmin of the
// statement's own snapshot). Every transaction below it has ended, so no row can ever appear
// before a served one: a reader following the feed by position misses nothing and sees nothing
// twice. The horizon trails the newest commits by the longest running write (seconds).
import { Prisma } from '../generated/prisma/client.ts';
import { db } from '../db/db.ts';

/** A place in the feed: (txid, seq) as decimal strings (both are bigint). */
export interface FeedPosition {
  txid: string;
  seq: string;
}

export interface FeedSelection {
  workspaceId: number;
  /** The boards the caller's role sees; null: all. */
  boardIds: string[] | null;
  types: string[];
  ticketId?: number;
  /** Inclusive; at least the start of the feed's window. */
  since: Date;
  /** Exclusive. */
  until?: Date;
}

interface FeedPage {
  /** Exclusive: rows strictly after (ascending) or before (descending) this place. */
  from?: FeedPosition;
  ascending: boolean;
  take: number;
}

interface SizedFeedRow extends FeedPosition {
  bytes: number;
}

/** The timestamp columns are timestamp(3) without zone holding UTC, as Prisma writes them. */
const at = (d: Date) => Prisma.sql`${d.toISOString()}::timestamp`;

function feedWhere(s: FeedSelection): Prisma.Sql {
  // Only ticket events: they have a ticket (and a board to judge visibility by).
  let where = Prisma.sql`"workspaceId" = ${s.workspaceId}::int AND "ticketId" IS NOT NULL AND "type" = ANY(${s.types}::text[])
    AND "txid" < pg_snapshot_xmin(pg_current_snapshot())::text::bigint AND "occurredAt" >= ${at(s.since)}`;
  if (s.boardIds) where = Prisma.sql`${where} AND "boardId" = ANY(${s.boardIds}::text[])`;
  if (s.ticketId !== undefined) where = Prisma.sql`${where} AND "ticketId" = ${s.ticketId}::int`;
  if (s.until) where = Prisma.sql`${where} AND "occurredAt" < ${at(s.until)}`;
  return where;
}

export const eventFeedRepository = {
  /** The page's events in feed order with their body's size (rest/page-budget.ts), one statement. */
  async sizes(s: FeedSelection, page: FeedPage): Promise<SizedFeedRow[]> {
    const dir = Prisma.raw(page.ascending ? 'ASC' : 'DESC');
    const from = page.from
      ? Prisma.sql`AND ("txid", "seq") ${Prisma.raw(page.ascending ? '>' : '<')} (${page.from.txid}::bigint, ${page.from.seq}::bigint)`
      : Prisma.empty;
    const statement = Prisma.sql`
      SELECT "txid"::text AS txid, "seq"::text AS seq, octet_length("payload"::text) AS bytes FROM "Event"
      WHERE ${feedWhere(s)} ${from}
      ORDER BY "txid" ${dir}, "seq" ${dir} LIMIT ${page.take}::int`;
    const rows = await db.read<{ txid: string; seq: string; bytes: number | string | null }>(statement.text, statement.values);
    return rows.map((r) => ({ txid: r.txid, seq: r.seq, bytes: Number(r.bytes ?? 0) }));
  },

  /** The stored envelopes of the events at these places, by `seq` (unique; any order). */
  async payloads(places: FeedPosition[]): Promise<Map<string, Record<string, unknown>>> {
    if (!places.length) return new Map();
    const rows = await db.read<{ seq: string; payload: Record<string, unknown> }>(`SELECT "seq"::text AS seq, "payload" FROM "Event" WHERE "seq" = ANY($1::bigint[])`, [
      places.map((p) => p.seq),
    ]);
    return new Map(rows.map((r) => [r.seq, r.payload]));
  },

  /** Where an event of the caller's feed is (its workspace, a ticket event of a board it sees); null for any other id. */
  async positionOf(s: Pick<FeedSelection, 'workspaceId' | 'boardIds' | 'types'>, id: string): Promise<FeedPosition | null> {
    let where = Prisma.sql`"id" = ${id} AND "workspaceId" = ${s.workspaceId}::int AND "ticketId" IS NOT NULL AND "type" = ANY(${s.types}::text[])`;
    if (s.boardIds) where = Prisma.sql`${where} AND "boardId" = ANY(${s.boardIds}::text[])`;
    const statement = Prisma.sql`SELECT "txid"::text AS txid, "seq"::text AS seq FROM "Event" WHERE ${where}`;
    const [row] = await db.read<FeedPosition>(statement.text, statement.values);
    return row ?? null;
  },
};
