import { defineRoutes } from '../rest/route.ts';

export const eventTypeRoutes = defineRoutes([
  {
    operationId: 'listEventTypes',
    method: 'GET',
    path: '/event-types',
    tag: 'Events',
    summary: 'The webhook event catalogue, with each body’s JSON Schema',
    description:
      'Needs only a valid key (no particular scope). Every event type a subscription can receive, with when it is sent and the ' +
      'JSON Schema (2020-12) of its body, standing alone (the ticket representation inlined). The same schemas, with the ticket ' +
      'as `$ref`, are this document’s `webhooks`. Not paged: the catalogue is short.',
    operation: /* GraphQL */ `
      query listEventTypes {
        eventTypes { data { type description schema } }
      }`,
  },
]);
