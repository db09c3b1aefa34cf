// GraphQL: the event catalogue (GET /event-types maps onto `eventTypes`).
import { builder } from '../graphql/builder.ts';
import { listEventTypes } from './event.schemas.ts';

type EventTypeEntry = ReturnType<typeof listEventTypes>[number];

const EventTypeInfo = builder.objectRef<EventTypeEntry>('EventType').implement({
  description: 'One type of the webhook event catalogue',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'The event type, e.g. `ticket.state_changed`: the `type` of its bodies' }),
    description: t.exposeString('description', { description: 'When it is sent, and what `changes` holds' }),
    schema: t.expose('schema', { type: 'JSON', description: 'The JSON Schema (2020-12) of its webhook body, standing alone' }),
  }),
});

// `{data: [...]}` as GET /event-types answers it (docs/api-contract.md, "Resources"), and room for more members later.
const EventTypeCatalogue = builder.objectRef<{ data: EventTypeEntry[] }>('EventTypeCatalogue').implement({
  description: 'The webhook event catalogue',
  fields: (t) => ({ data: t.field({ type: [EventTypeInfo], resolve: (c) => c.data }) }),
});

builder.queryField('eventTypes', (t) =>
  t.field({
    type: EventTypeCatalogue,
    description: 'Every webhook event type with its body schema (any valid key, or a signed-in person)',
    authScopes: { authenticated: true },
    resolve: () => ({ data: listEventTypes() }),
  }),
);
