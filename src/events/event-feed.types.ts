// GraphQL of the events feed (GET /events maps onto `events`). Each node is the webhook envelope
// as JSON, exactly the body a delivery of that event carries.
import { builder } from '../graphql/builder.ts';
import type { ApiScope } from '../access/principal.ts';
import { FEED_DAYS, listFeed } from './event-feed.service.ts';

const READ: { anyScope: ApiScope[] } = { anyScope: ['tickets:read', 'tickets:write'] };

builder.queryFields((t) => ({
  events: t.connection(
    {
      type: 'JSON',
      description:
        `The workspace’s ticket events of the last ${FEED_DAYS} days that the caller’s role sees, each the envelope webhooks deliver. ` +
        'Newest first; with `afterEvent`, the events after that one, oldest first, where the page always has an `endCursor` to continue ' +
        'from later (catch-up). An event appears once every transaction that began writing before it has ended, so following the ' +
        'feed misses nothing and repeats nothing. Only `first` and `after` page it.',
      authScopes: READ,
      args: {
        type: t.arg.string({ description: 'Only events of this type' }),
        ticketId: t.arg.int({ description: 'Only events of this ticket' }),
        since: t.arg({ type: 'DateTime', description: 'Only events that occurred at or after this time' }),
        until: t.arg({ type: 'DateTime', description: 'Only events that occurred before this time' }),
        afterEvent: t.arg.string({ description: 'Catch up: the events after this one (an `evt_…` id), oldest first' }),
      },
      resolve: (_root, args, ctx) =>
        listFeed(ctx.principal!, args, ctx.pageHold, ctx.restRoute ? { afterEvent: 'query/after', cursor: 'query/cursor' } : undefined),
    },
    { name: 'EventConnection' },
    { name: 'EventEdge' },
  ),
}));
