// The event catalogue as data: for each event type its description, the zod schema of its
// webhook body (envelope, `changes`, `data`) and an example made by the envelope builder itself.
// The OpenAPI document's `webhooks` and GET /event-types are generated from these; tests check
// every real event of every type against them, so the catalogue cannot drift from what is sent.
import { z } from 'zod';
import type { TicketEventType } from './event.thin.ts';
import { buildEventEnvelope, EVENT_TYPES, type EventActor, type EventType, type FieldChange, type JsonValue, type OperationalEventType } from './event.envelope.ts';

type JsonSchema = Record<string, unknown>;

/** Any JSON value, null included (a custom field's value, an old or new value). */
const jsonValue = z.unknown().meta({ description: 'Any JSON value' }) as unknown as z.ZodType<JsonValue>;
const timestamp = z.iso.datetime().describe('ISO 8601, UTC');
const actor = z.object({ id: z.int().describe('The acting account'), name: z.string() });

/** The ticket representation of every ticket response; in the OpenAPI document a `$ref` to its component. */
export const ticketSchema = z.object({
  id: z.int(),
  boardId: z.string(),
  subject: z.string(),
  description: z.string(),
  state: z.object({ id: z.string(), name: z.string(), category: z.enum(['open', 'pending', 'solved', 'closed']) }),
  priority: z.string(),
  requester: z.object({ email: z.string() }),
  fields: z.array(z.object({ fieldId: z.string(), value: jsonValue })),
  channel: z.enum(['api', 'web', 'email', 'system']),
  createdBy: actor,
  version: z.int().min(1).describe('1 when created, one more with each change: a delivery with a lower version than one already processed is older news'),
  createdAt: timestamp,
  updatedAt: timestamp,
});

/** The comment representation of GET /tickets/{id}/comments; in the document a `$ref` too. */
export const commentSchema = z.object({
  id: z.int(),
  ticketId: z.int(),
  body: z.string(),
  public: z.boolean(),
  channel: z.enum(['api', 'web', 'email', 'system']),
  author: actor,
  createdAt: timestamp,
});

// The schemas describe exactly the representations the code builds (a compile error otherwise);
// src/tickets/ticket.representation.ts checks the ticket's and the comment's, so that events
// import nothing of tickets.
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const fieldChange = z.object({
  field: z.string().describe('`subject`, `description`, `priority`, or `fields.<id>` for a custom field'),
  oldValue: jsonValue,
  newValue: jsonValue,
});
true satisfies Same<z.infer<typeof fieldChange>, FieldChange>;

const testData = z.object({
  subscriptionId: z.string().describe('The subscription the test was sent to'),
  url: z.string(),
  message: z.string(),
});

const ticketActor = actor.describe('Who made the change: a person, or the service account of an API key');

function envelope<T extends EventType, C extends z.ZodType, D extends z.ZodType, E extends z.ZodRawShape = Record<never, never>>(
  type: T,
  changes: C,
  data: D,
  extra?: E,
  who: z.ZodType = ticketActor,
) {
  return z.object({
    id: z.string().regex(/^evt_/).describe('The event id, also sent as `webhook-id`: the same on every retry and re-send'),
    type: z.literal(type),
    occurredAt: timestamp,
    workspace: z.string().describe('The workspace address'),
    actor: who,
    changes,
    data,
    ...(extra ?? ({} as E)),
  });
}

// Operational events: about one subscription of the workspace, never sent to it. What an operator
// needs to act, and nothing secret: no signing secret, no ticket, no receiver's answer body.
const operationalActor = actor
  .nullable()
  .describe('Who resumed or re-enabled it (a person, or the service account of an API key); null when the service itself acted (a pause, a 410, a delivery out of attempts)');
const subscriptionSummary = {
  subscriptionId: z.string().describe('The subscription this event is about (`wh_…`); it never receives this event itself'),
  url: z.string().describe('Its endpoint\'s origin (scheme, host and port): the path and query are left out, since they may hold a token'),
  description: z.string().describe('Its description'),
  condition: z.enum(['receiving', 'paused', 'disabled']).describe('Its condition after the change'),
};
const conditionData = z.object({
  ...subscriptionSummary,
  reason: z
    .enum(['failures', 'gone', 'rejected', 'manual'])
    .describe('`failures`: 20 failed attempts in a row; `gone`: the endpoint answered 410 Gone; `manual`: a person or key resumed or re-enabled it'),
  consecutiveFailures: z.int().min(0).describe('Failed attempts in a row at the time (0 after a resume or re-enable)'),
});
const deliveryFailedData = z.object({
  ...subscriptionSummary,
  deliveryId: z.string().describe('The delivery that failed (`dlv_…`): re-send it with POST /webhooks/{id}/deliveries/{deliveryId}/resend'),
  eventId: z.string().describe('The event that was not delivered (`evt_…`; GET /events has it, a ticket event)'),
  eventType: z.string().describe('Its type'),
  attempts: z.int().min(1).describe('Attempts made, all failed'),
  lastAttempt: z
    .object({
      httpStatus: z.int().nullable().describe('The endpoint’s status; null when no answer came'),
      error: z.string().nullable().describe('Why no answer came (time-out, refused connection, refused address); null when one came'),
      attemptedAt: timestamp,
    })
    .describe('The last attempt, in summary (the delivery log has its details)'),
});
const operational = (type: OperationalEventType, data: z.ZodType) => envelope(type, z.null(), data, undefined, operationalActor);
const EXAMPLE_SUBSCRIPTION = { subscriptionId: 'wh_01JGZ8Q4W6Y2KX3N5P7R9T1V3B', url: 'https://hooks.example.com', description: 'CRM sync' };

const ticketData = ticketSchema.describe('The ticket after the change, in the representation of every ticket response');
const commentData = commentSchema.describe('The new comment');

interface CatalogueEntry {
  description: string;
  body: z.ZodObject;
  /** What the builder is given for the example (id, time, workspace and actor are common). */
  example: { changes?: FieldChange | FieldChange[] | null; data: JsonValue; comment?: JsonValue; actor?: EventActor | null };
}

const EXAMPLE_TICKET: z.infer<typeof ticketSchema> = {
  id: 1042,
  boardId: 'support',
  subject: 'Order #8841 arrived damaged',
  description: 'The box was crushed.',
  state: { id: 'st_open', name: 'Open', category: 'open' },
  priority: 'high',
  requester: { email: 'dana@example.com' },
  fields: [{ fieldId: 'order_number', value: '8841' }],
  channel: 'api',
  createdBy: { id: 7, name: 'Zapier integration' },
  version: 3,
  createdAt: '2026-01-05T09:30:00.000Z',
  updatedAt: '2026-01-05T09:42:00.000Z',
};
const example = (ticket: Partial<z.infer<typeof ticketSchema>>) => ({ ...EXAMPLE_TICKET, ...ticket }) as unknown as JsonValue;

export const eventCatalogue: Record<EventType, CatalogueEntry> = {
  'ticket.created': {
    description: 'A ticket was created (in the web app or through the API). `changes` is null.',
    body: envelope('ticket.created', z.null(), ticketData),
    example: { data: example({}) },
  },
  'ticket.updated': {
    description:
      'Fields of a ticket other than its state changed: subject, description, priority or custom fields. `changes` lists each ' +
      'changed field with its old and new value. One request changing the state too sends `ticket.state_changed` as well.',
    body: envelope('ticket.updated', z.array(fieldChange).min(1), ticketData),
    example: { changes: [{ field: 'priority', oldValue: 'normal', newValue: 'high' }], data: example({}) },
  },
  'ticket.state_changed': {
    description: 'The state of a ticket changed. `changes` is the single object `{field: "state", oldValue, newValue}` of state names.',
    body: envelope(
      'ticket.state_changed',
      z.object({ field: z.literal('state'), oldValue: z.string().describe('The former state’s name'), newValue: z.string().describe('The new state’s name') }),
      ticketData,
    ),
    example: { changes: { field: 'state', oldValue: 'Open', newValue: 'Solved' }, data: example({ state: { id: 'st_solved', name: 'Solved', category: 'solved' } }) },
  },
  'ticket.comment_added': {
    description: 'A comment (public or internal note) was added to a ticket. `changes` is null; `comment` is the new comment.',
    body: envelope('ticket.comment_added', z.null(), ticketData, { comment: commentData }),
    example: {
      data: example({}),
      comment: { id: 311, ticketId: 1042, body: 'A replacement is on its way.', public: true, channel: 'api', author: { id: 7, name: 'Zapier integration' }, createdAt: '2026-01-05T09:42:00.000Z' },
    },
  },
  'webhook.test': {
    description: 'Sent by the Test action of one subscription (settings, or POST /webhooks/{id}/test), to that subscription only, whatever its filters. `changes` is null.',
    body: envelope('webhook.test', z.null(), testData.describe('Which subscription the test is for')),
    example: { data: { subscriptionId: 'wh_01JGZ8Q4W6Y2KX3N5P7R9T1V3B', url: 'https://hooks.example.com/ticketing', message: 'A test event sent from the webhook settings.' } },
  },
  'webhook.paused': {
    description:
      'Operational: a subscription was paused after 20 failed attempts in a row (nothing is sent to it until it is resumed). Sent to the ' +
      'other subscriptions of the workspace that listen to it, never to the paused one. `actor` is null, `changes` is null.',
    body: operational('webhook.paused', conditionData),
    example: { actor: null, data: { ...EXAMPLE_SUBSCRIPTION, condition: 'paused', reason: 'failures', consecutiveFailures: 20 } },
  },
  'webhook.disabled': {
    description:
      'Operational: a subscription was disabled because its endpoint answered 410 Gone (nothing is sent to it, pending deliveries are ' +
      'cancelled, until it is re-enabled). Never sent to the disabled subscription. `actor` is null, `changes` is null.',
    body: operational('webhook.disabled', conditionData),
    example: { actor: null, data: { ...EXAMPLE_SUBSCRIPTION, condition: 'disabled', reason: 'gone', consecutiveFailures: 3 } },
  },
  'webhook.resumed': {
    description:
      'Operational: a paused subscription was resumed (paused → receiving; its held deliveries go out). Never sent to the resumed ' +
      'subscription. `actor` is who resumed it, `changes` is null.',
    body: operational('webhook.resumed', conditionData),
    example: { data: { ...EXAMPLE_SUBSCRIPTION, condition: 'receiving', reason: 'manual', consecutiveFailures: 0 } },
  },
  'webhook.enabled': {
    description:
      'Operational: a disabled subscription was re-enabled (disabled → receiving). Never sent to the re-enabled subscription. ' +
      '`actor` is who re-enabled it, `changes` is null.',
    body: operational('webhook.enabled', conditionData),
    example: { data: { ...EXAMPLE_SUBSCRIPTION, condition: 'receiving', reason: 'manual', consecutiveFailures: 0 } },
  },
  'webhook.delivery_failed': {
    description:
      'Operational: the last scheduled attempt (the seventh) of a delivery of a ticket event failed; the event will not be sent to ' +
      'that subscription unless someone re-sends it. Never sent to the subscription whose delivery failed. Not sent for deliveries ' +
      'of `webhook.*` events (tests and operational events), so two failing subscriptions listening to it cannot feed each other. ' +
      'No ticket content: the event id leads to it (GET /events). `actor` is null, `changes` is null.',
    body: operational('webhook.delivery_failed', deliveryFailedData),
    example: {
      actor: null,
      data: {
        ...EXAMPLE_SUBSCRIPTION,
        condition: 'receiving',
        deliveryId: 'dlv_01JGZ8Q4W6Y2KX3N5P7R9T1V3C',
        eventId: 'evt_01JGZ8Q4W6Y2KX3N5P7R9T1V3D',
        eventType: 'ticket.updated',
        attempts: 7,
        lastAttempt: { httpStatus: 503, error: null, attemptedAt: '2026-01-05T09:41:58.000Z' },
      },
    },
  },
};

/** The example body of a type, made by the builder that makes every real event. */
export function exampleEvent(type: EventType) {
  const { changes, data, comment, actor = { id: 7, name: 'Zapier integration' } } = eventCatalogue[type].example;
  return buildEventEnvelope({
    id: 'evt_01JGZ8Q4W6Y2KX3N5P7R9T1V3A',
    type,
    occurredAt: new Date('2026-01-05T09:42:00.000Z'),
    workspace: { domain: 'https://acme.example.com' },
    actor,
    changes,
    data,
    comment,
  });
}

/**
 * The JSON Schema (2020-12) of a type's body. With `refs`, the ticket and comment become `$ref`s
 * to those (the OpenAPI document's components); without, the schema stands alone.
 */
export function eventBodySchema(type: EventType, refs?: { ticket: string; comment: string }): JsonSchema {
  return bodyJsonSchema(eventCatalogue[type].body, refs);
}

function bodyJsonSchema(body: z.ZodType, refs?: { ticket: string; comment: string }): JsonSchema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(body, {
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const js = jsonSchema as JsonSchema;
      // The format says it; zod's long pattern would only repeat it.
      if (js.format === 'date-time') delete js.pattern;
      // zod's z.int() bounds are JavaScript's safe integers: no rule of ours.
      if (js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
      if (js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
      const ref = refs && (zodSchema === ticketData ? refs.ticket : zodSchema === commentData ? refs.comment : undefined);
      if (ref) {
        const { description } = js;
        for (const key of Object.keys(js)) delete js[key];
        Object.assign(js, { $ref: ref }, description ? { description } : {});
      }
    },
  }) as JsonSchema;
  return schema;
}

let catalogue: { type: EventType; description: string; schema: JsonSchema }[] | undefined;
/** GET /event-types: every type with its description and stand-alone body schema (built once, on first use). */
export const listEventTypes = () => (catalogue ??= EVENT_TYPES.map((type) => ({ type, description: eventCatalogue[type].description, schema: eventBodySchema(type) })));

/** A thin ticket event's `data` (event.thin.ts): the reference to fetch, never the ticket's content. */
const thinTicketData = z
  .object({
    object: z.literal('ticket'),
    id: z.int().describe('The ticket id'),
    version: z
      .int()
      .min(1)
      .describe('The ticket’s version right after this change: the ticket’s ETag is `"<version>"` until it changes again; a change sent with `If-Match: "<version>"` is made only at that version (412 otherwise)'),
    changedFields: z
      .array(z.string())
      .describe('The fields this change touched: for ticket.updated the `field`s of its changes (`subject`, `description`, `priority`, `fields.<id>`), `state` for ticket.state_changed, `comments` for ticket.comment_added, none for ticket.created'),
    url: z.string().describe('The ticket in the REST API (`<public base URL>/tickets/<id>`)'),
    commentId: z.int().optional().describe('ticket.comment_added: the new comment’s id (GET the ticket’s comments)'),
  })
  .describe('Thin payload: the ticket to fetch, not its content');

/** The body of a ticket event delivered to a subscription with `payload: "thin"`: `changes` null, no `comment`. */
export function thinEventBodySchema(type: TicketEventType): JsonSchema {
  const changes = z.null().describe('Always null in thin payloads (old and new values are ticket content)');
  return bodyJsonSchema(envelope(type, changes, thinTicketData, { payload: z.literal('thin').describe('Marks a thin payload: full ones have no such member') }));
}
