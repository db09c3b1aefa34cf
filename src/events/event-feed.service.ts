// The events feed (GET /events): the workspace's ticket events of the last 30 days, each entry the
// envelope webhooks deliver. Newest first, or with `afterEvent` oldest first from that event on
// (catch-up), where the page always has a next cursor: the place to poll from later. Order and
// visibility: event-feed.repository.ts. Paged like every list (paging/page-by-key.ts), with the byte budget.
import { z } from 'zod';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { visibleBoardFilter, type Principal } from '../access/principal.ts';
import { MAX_PAGE_SIZE } from '../paging/paging.ts';
import type { PageHold } from '../paging/page-budget.ts';
import { pageByKey } from '../paging/page-by-key.ts';
import { decodeKey, encodeKey, type PageKey } from '../paging/page-keys.ts';
import { EVENT_TYPES, inEnvelopeOrder } from './event.envelope.ts';
import { eventFeedRepository, type FeedPosition, type FeedSelection } from './event-feed.repository.ts';

/** How far back the feed reaches. */
export const FEED_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The types the feed serves: changes to tickets. webhook.* events are left out: webhook.test is
 * addressed to one subscription, on request; the operational events describe subscriptions, which
 * only callers that manage webhooks may see (the feed's scope is tickets:read), and they already
 * reach those through subscriptions and the delivery log.
 */
export const FEED_EVENT_TYPES = EVENT_TYPES.filter((t) => t.startsWith('ticket.'));

export const EVENT_ID = /^evt_[0-9A-Za-z]{1,64}$/;

/** The feed's key: a place, (txid, seq), bigints in decimal. */
const PLACE = /^([ad]):(0|[1-9][0-9]{0,18}):(0|[1-9][0-9]{0,18})$/;
const byNumber = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/** A cursor also says which way it pages (`a`: catch-up, oldest first; `d`: newest first), so each direction has its own kind of key. */
const placeKey = (direction: 'a' | 'd'): PageKey<FeedPosition> => ({
  format: (p) => `${direction}:${p.txid}:${p.seq}`,
  parse(text) {
    const m = PLACE.exec(text);
    return m?.[1] === direction ? { txid: m[2], seq: m[3] } : null;
  },
  compare: (a, b) => byNumber(a.txid, b.txid) || byNumber(a.seq, b.seq),
});
const ascendingPlaces = placeKey('a');
const descendingPlaces = placeKey('d');

interface FeedRow extends FeedPosition {
  node: Record<string, unknown>;
}

const feedFilter = z.object({
  type: z.enum(FEED_EVENT_TYPES).nullish(),
  ticketId: z.int().min(1).max(2 ** 31 - 1).nullish(),
  since: z.date().nullish(),
  until: z.date().nullish(),
  afterEvent: z.string().regex(EVENT_ID, 'is not an event id').nullish(),
  first: z.int().min(1).max(MAX_PAGE_SIZE).nullish(),
  after: z.string().max(128).nullish(),
  last: z.null().optional(),
  before: z.null().optional(),
});

interface FeedArgs {
  type?: string | null;
  ticketId?: number | null;
  since?: Date | null;
  until?: Date | null;
  afterEvent?: string | null;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

interface FeedConnection {
  edges: { cursor: string; node: Record<string, unknown> }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** `paths`: how the caller names the arguments in its errors (REST query parameters, or GraphQL arguments). */
export async function listFeed(
  p: Principal,
  raw: FeedArgs,
  hold: PageHold | undefined,
  paths: { afterEvent: string; cursor: string } = { afterEvent: '/afterEvent', cursor: '/after' },
  now = new Date(),
): Promise<FeedConnection> {
  const parsed = feedFilter.safeParse(raw);
  if (!parsed.success) throw new AppError('validation_failed', 'An argument is not valid', { errors: fromZodIssues(parsed.error.issues) });
  const args = parsed.data;
  const windowStart = new Date(now.getTime() - FEED_DAYS * DAY_MS);
  const selection: FeedSelection = {
    workspaceId: p.workspace.id,
    boardIds: visibleBoardFilter(p.role).id?.in ?? null,
    types: args.type ? [args.type] : [...FEED_EVENT_TYPES],
    ticketId: args.ticketId ?? undefined,
    since: args.since && args.since > windowStart ? args.since : windowStart,
    until: args.until ?? undefined,
  };

  // A cursor carries its direction; `afterEvent` starts a catch-up (from its place); neither, the newest page.
  let ascending = false;
  let after = args.after ?? undefined;
  if (after) {
    ascending = decodeKey(ascendingPlaces, after) !== null;
    if (!ascending && decodeKey(descendingPlaces, after) === null) throw invalid(paths.cursor, 'is not a cursor of this list');
  } else if (args.afterEvent) {
    const position = await eventFeedRepository.positionOf(selection, args.afterEvent);
    if (!position) throw invalid(paths.afterEvent, `is not an event of this feed (the last ${FEED_DAYS} days' ticket events the key sees)`);
    ascending = true;
    after = encodeKey(ascendingPlaces, position);
  }

  const connection = await pageByKey<FeedRow, FeedPosition>(
    { first: args.first, after },
    {
      key: ascending ? ascendingPlaces : descendingPlaces,
      keyOf: (row) => row,
      newestFirst: !ascending,
      budget: {
        hold,
        sizes: async (page) => {
          const from = page.where.id?.lt ?? page.where.id?.gt;
          return (await eventFeedRepository.sizes(selection, { from, ascending, take: page.take })).map((r) => ({ id: r, bytes: r.bytes }));
        },
      },
      load: async (page) => {
        const places = page.where.id?.in ?? [];
        const payloads = await eventFeedRepository.payloads(places);
        // A row the retention purged between the two statements is simply not in this page.
        return places.flatMap((p) => {
          const payload = payloads.get(p.seq);
          return payload ? [{ txid: p.txid, seq: p.seq, node: inEnvelopeOrder(payload) }] : [];
        });
      },
    },
  );
  const edges = connection.edges.map((e) => ({ cursor: e.cursor, node: e.node.node }));
  return {
    edges,
    pageInfo: {
      // Catch-up never ends: its next cursor is where to poll from, also when nothing is new yet (then the cursor it was given).
      hasNextPage: ascending || connection.pageInfo.hasNextPage,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: connection.pageInfo.endCursor || null,
    },
  };
}

const invalid = (path: string, message: string) => new AppError('validation_failed', 'An argument is not valid', { errors: [{ path, message }] });
