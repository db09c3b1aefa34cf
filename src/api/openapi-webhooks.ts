// The webhooks section of the OpenAPI document: one entry per event type, what we POST to a
// subscription's URL, generated from the event catalogue.
import { EVENT_TYPES } from '../events/event.envelope.ts';
import { eventBodySchema, eventCatalogue, exampleEvent, thinEventBodySchema } from '../events/event.schemas.ts';
import { isTicketEvent, thinEnvelope } from '../events/event.thin.ts';

/** The Standard Webhooks headers of every delivery (standardwebhooks.com), as the sender sets them. */
const webhookHeaders = [
  {
    name: 'webhook-id',
    description: 'The event id (`id` of the body): the same on every retry and re-send. Deduplicate on it.',
    schema: { type: 'string', pattern: '^evt_' },
  },
  {
    name: 'webhook-timestamp',
    description: 'When this attempt was sent, in Unix seconds. Refuse deliveries too far from your clock (5 minutes is usual).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    description:
      '`v1,` + base64(HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`)), the key being the base64-decoded part of the ' +
      'secret after `whsec_`. For 24 hours after a rotation two signatures, new first, separated by a space: accept either. ' +
      'The `standardwebhooks` and `svix` libraries verify it unchanged.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})?$' },
  },
  { name: 'User-Agent', description: 'Identifies our sender and its version.', schema: { type: 'string', const: 'Service-Webhooks/1.0' } },
].map((h) => ({ ...h, in: 'header', required: true }));

/** The public base URL of the thin examples (the example workspace's). */
const EXAMPLE_BASE_URL = 'https://acme.example.com/public/v1';
const THIN_NOTE =
  '\n\nTo a subscription with `payload: "thin"` the body is the thin variant (example `thin`, marked `payload: "thin"`): `changes` null, no `comment`, and `data` only ' +
  '`{object: "ticket", id, version, changedFields, url}`. Fetch the ticket at `url`: its `ETag` is `"<version>"` while nothing changed since; ' +
  'a change sent with `If-Match: "<version>"` is made only at that version (412 `precondition_failed` otherwise).';

/** A ticket event's body: the full envelope or its thin variant, by the subscription's `payload`; other events have one form. */
function bodyOf(type: (typeof EVENT_TYPES)[number], refs: { ticket: string; comment: string }) {
  if (!isTicketEvent(type)) return { schema: eventBodySchema(type, refs), example: exampleEvent(type) };
  return {
    schema: { oneOf: [eventBodySchema(type, refs), thinEventBodySchema(type)] },
    examples: {
      full: { summary: 'payload: "full" (the default)', value: exampleEvent(type) },
      thin: { summary: 'payload: "thin"', value: thinEnvelope(exampleEvent(type), EXAMPLE_BASE_URL) },
    },
  };
}

/** One entry per event type: what we POST to a subscription's URL, generated from the event catalogue. */
export function webhooks() {
  const refs = { ticket: '#/components/schemas/Ticket', comment: '#/components/schemas/Comment' };
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `receive${type.split(/[._]/).map((w) => w[0].toUpperCase() + w.slice(1)).join('')}`,
          summary: type,
          description:
            `${eventCatalogue[type].description}${isTicketEvent(type) ? THIN_NOTE : ''}\n\nSent as \`POST\` with \`Content-Type: application/json\` to each receiving subscription ` +
            'listening to it. Answer any 2xx within 10 s; anything else is retried (7 attempts over about 35 hours, 410 disables the subscription).',
          tags: ['Events'],
          security: [],
          parameters: webhookHeaders,
          requestBody: {
            required: true,
            content: { 'application/json': bodyOf(type, refs) },
          },
          responses: { '2XX': { description: 'Received; nothing further is sent for this event to this subscription' } },
        },
      },
    ]),
  );
}
