// The events feed (GET /events): the workspace's ticket events of the last 30 days, each entry the
// envelope webhooks deliver. Newest first, or with `afterEvent` oldest first from that event on
// (catch-up), where the page always has a next cursor: the place to poll from later. Order and
// visibility: event-feed.repository.ts. Pages are cut by the page byte budget like every list.
import { z } from 'zod';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { visibleBoardFilter, type Principal } from '../access/principal.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../paging/paging.ts';
import { pageMemory, ROW_OVERHEAD_BYTES, rowsWithinBudget, type PageHold } from '../paging/page-budget.ts';
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

/** The feed's own cursor (signed on the way out by graphql/input-rules.ts): direction and place. */
const CURSOR = /^([ad]):(0|[1-9][0-9]{0,18}):(0|[1-9][0-9]{0,18})$/;

const encode = (ascending: boolean, p: FeedPosition) => `${ascending ? 'a' : 'd'}:${p.txid}:${p.seq}`;

function decode(cursor: string): { ascending: boolean; from: FeedPosition } | null {
  const m = CURSOR.exec(cursor);
  return m ? { ascending: m[1] === 'a', from: { txid: m[2]!, seq: m[3]! } } : null;
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

export interface FeedArgs {
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

export interface FeedConnection {
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

  // A cursor carries its direction; `afterEvent` starts a catch-up; neither, the newest page.
  let ascending = false;
  let from: FeedPosition | undefined;
  if (args.after) {
    const cursor = decode(args.after);
    if (!cursor) throw invalid(paths.cursor, 'is not a cursor of this list');
    ({ ascending, from } = cursor);
  } else if (args.afterEvent) {
    const position = await eventFeedRepository.positionOf(selection, args.afterEvent);
    if (!position) throw invalid(paths.afterEvent, `is not an event of this feed (the last ${FEED_DAYS} days' ticket events the key sees)`);
    ascending = true;
    from = position;
  }

  const size = args.first ?? DEFAULT_PAGE_SIZE;
  // One row more than the page tells whether more follow.
  const sized = await eventFeedRepository.sizes(selection, { from, ascending, take: size + 1 });
  const sizes = sized.slice(0, size).map((r) => r.bytes);
  const fit = rowsWithinBudget(sizes);
  const kept = sized.slice(0, fit);
  await pageMemory.reserve(hold, sizes.slice(0, fit).reduce((sum, b) => sum + b + ROW_OVERHEAD_BYTES, 0));
  const payloads = await eventFeedRepository.payloads(kept.map((r) => r.id));
  // A row the retention purged between the two statements is simply not in this page.
  const edges = kept.flatMap((r) => {
    const payload = payloads.get(r.id);
    return payload ? [{ cursor: encode(ascending, r), node: inEnvelopeOrder(payload) }] : [];
  });
  const last = kept.at(-1);
  // Catch-up never ends: its next cursor is where to poll from, also when nothing is new yet.
  const end = last ?? from;
  return {
    edges,
    pageInfo: {
      hasNextPage: ascending || kept.length < sized.length,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: end ? encode(ascending, end) : null,
    },
  };
}

const invalid = (path: string, message: string) => new AppError('validation_failed', 'An argument is not valid', { errors: [{ path, message }] });
