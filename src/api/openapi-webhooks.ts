// The webhooks section of the OpenAPI document: one entry per event type, what we POST to a
// subscription's URL, generated from the event catalogue.
import { EVENT_TYPES } from '../events/event.envelope.ts';
import { eventBodySchema, eventCatalogue, exampleEvent } from '../events/event.schemas.ts';

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

/** One entry per event type: what we POST to a subscription's URL, generated from the event catalogue. */
export function webhooks() {
  const refs = { ticket: '#/components/schemas/Ticket', comment: '#/components/schemas/Comment' };
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `receive${type.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`,
          summary: type,
          description:
            `${eventCatalogue[type].description}\n\nSent as \`POST\` with \`Content-Type: application/json\` to each receiving subscription ` +
            'listening to it. Answer any 2xx within 10 s; anything else is retried (7 attempts over about 35 hours, 410 disables the subscription).',
          tags: ['Events'],
          security: [],
          parameters: webhookHeaders,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: eventBodySchema(type, refs), example: exampleEvent(type) } },
          },
          responses: { '2XX': { description: 'Received; nothing further is sent for this event to this subscription' } },
        },
      },
    ]),
  );
}
