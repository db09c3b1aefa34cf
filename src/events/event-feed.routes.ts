import { z } from 'zod';
import { defineRoutes, pagedOperation } from '../rest/route.ts';
import { pageQuery, pageVariables } from '../paging/paging.ts';
import { dateTime, decimalInteger } from '../validation/text.ts';
import { eventBodySchema } from './event.schemas.ts';
import { EVENT_ID, FEED_DAYS, FEED_EVENT_TYPES } from './event-feed.service.ts';

const feedQuery = pageQuery.extend({
  type: z.enum(FEED_EVENT_TYPES).optional().describe('Only events of this type'),
  ticketId: decimalInteger({ min: 1, max: 2 ** 31 - 1, description: 'Only events of this ticket' }).optional(),
  since: dateTime('Only events that occurred at or after this ISO 8601 time.').optional(),
  until: dateTime('Only events that occurred before this ISO 8601 time.').optional(),
  after: z
    .string()
    .max(68)
    .regex(EVENT_ID, 'is not an event id')
    .optional()
    .describe('Catch up: the events after this one (an `evt_…` id from this feed), oldest first. A `cursor` given too takes precedence.'),
});

const refs = { ticket: '#/components/schemas/Ticket', comment: '#/components/schemas/Comment' };

export const eventFeedRoutes = defineRoutes([
  {
    operationId: 'listEvents',
    method: 'GET',
    path: '/events',
    tag: 'Events',
    summary: 'The events feed: catch up on ticket events, newest first or after a given event',
    description:
      `Needs the scope \`tickets:read\` or \`tickets:write\`. The workspace’s ticket events of the last ${FEED_DAYS} days, each entry ` +
      'exactly the body a webhook delivery of that event carries (same `id`, same members; see `webhooks`), whether or not any ' +
      'subscription received it. Only events of tickets on boards the key’s role sees. `webhook.test` events are not in the feed ' +
      '(they are sent to one subscription on request and change nothing), nor are the operational events (`webhook.paused`, ' +
      '`webhook.disabled`, `webhook.resumed`, `webhook.enabled`, `webhook.delivery_failed`): they describe subscriptions, which need ' +
      'the scope `webhooks:manage`; subscribe to them instead. Filters combine: `type`, `ticketId`, `since`, `until`.\n\n' +
      'Without `after`: newest first, paged with `limit` and `cursor` like every list (`nextCursor` null on the last page).\n\n' +
      'Catch-up, `after=<event id>`: the events that follow that one, oldest first. Here `nextCursor` is never null: it is the place ' +
      'to continue from, also when the page is empty (nothing new yet). Store it (or the id of the last event you processed, as ' +
      '`after`) and poll again later with `cursor=<nextCursor>`.\n\n' +
      'Order and completeness: the feed’s order is the order in which the writing transactions began (one request’s events in the ' +
      'order it wrote them), and an event appears only once every transaction that began before its own has ended, usually within ' +
      'a second. So the feed only grows at its end: a consumer following it misses nothing and sees nothing twice, however many ' +
      'changes happen at once. An id taken from a webhook delivery may come slightly before events it raced with; deduplicate on `id` ' +
      'when mixing webhooks and the feed. Ticket events carry the ticket’s `version` in `data`: keep the highest you have seen.',
    operation: pagedOperation('listEvents', 'events', '', { type: '$type: String', ticketId: '$ticketId: Int', since: '$since: DateTime', until: '$until: DateTime', afterEvent: '$afterEvent: String' }),
    query: feedQuery,
    variables: ({ query }) => ({
      ...pageVariables(query),
      type: query.type ?? null,
      ticketId: query.ticketId ?? null,
      since: query.since ?? null,
      until: query.until ?? null,
      afterEvent: query.after ?? null,
    }),
    paged: true,
    itemSchema: { oneOf: FEED_EVENT_TYPES.map((type) => eventBodySchema(type, refs)) },
  },
]);
