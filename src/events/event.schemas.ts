// The event catalogue as data: for each event type its description, the zod schema of its
// webhook body (envelope, `changes`, `data`) and an example made by the envelope builder itself.
// The OpenAPI document's `webhooks` and GET /event-types are generated from these; tests check
// every real event of every type against them, so the catalogue cannot drift from what is sent.
import { z } from 'zod';
import type { CommentRepresentation, TicketRepresentation } from '../tickets/ticket.representation.ts';
import { buildEventEnvelope, EVENT_TYPES, type EventType, type FieldChange, type JsonValue } from './event.envelope.ts';

type JsonSchema = Record<string, unknown>;

/** Any JSON value, null included (a custom field's value, an old or new value). */
const jsonValue = z.unknown().meta({ description: 'Any JSON value' }) as unknown as z.ZodType<JsonValue>;
const timestamp = z.iso.datetime().describe('ISO 8601, UTC');
const actor = z.object({ id: z.int().describe('The acting account'), name: z.string() });

/** The ticket representation of every ticket response; in the OpenAPI document a `$ref` to its component. */
const ticketSchema = z.object({
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
const commentSchema = z.object({
  id: z.int(),
  ticketId: z.int(),
  body: z.string(),
  public: z.boolean(),
  channel: z.enum(['api', 'web', 'email', 'system']),
  author: actor,
  createdAt: timestamp,
});

// The schemas describe exactly the representations the code builds (a compile error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<z.infer<typeof ticketSchema>, TicketRepresentation>;
true satisfies Same<z.infer<typeof commentSchema>, CommentRepresentation>;

const fieldChange = z.object({
  field: z.string().describe('`subject`, `description`, `priority`, or the id of a custom field'),
  oldValue: jsonValue,
  newValue: jsonValue,
});
true satisfies Same<z.infer<typeof fieldChange>, FieldChange>;

const testData = z.object({
  subscriptionId: z.string().describe('The subscription the test was sent to'),
  url: z.string(),
  message: z.string(),
});

function envelope<T extends EventType, C extends z.ZodType, D extends z.ZodType, E extends z.ZodRawShape = {}>(type: T, changes: C, data: D, extra?: E) {
  return z.object({
    id: z.string().regex(/^evt_/).describe('The event id, also sent as `webhook-id`: the same on every retry and re-send'),
    type: z.literal(type),
    occurredAt: timestamp,
    workspace: z.string().describe('The workspace address'),
    actor: actor.describe('Who made the change: a person, or the service account of an API key'),
    changes,
    data,
    ...(extra ?? ({} as E)),
  });
}

const ticketData = ticketSchema.describe('The ticket after the change, in the representation of every ticket response');
const commentData = commentSchema.describe('The new comment');

interface CatalogueEntry {
  description: string;
  body: z.ZodObject;
  /** What the builder is given for the example (id, time, workspace and actor are common). */
  example: { changes?: FieldChange | FieldChange[] | null; data: JsonValue; comment?: JsonValue };
}

const EXAMPLE_TICKET: TicketRepresentation = {
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
const example = (ticket: Partial<TicketRepresentation>) => ({ ...EXAMPLE_TICKET, ...ticket }) as unknown as JsonValue;

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
};

/** The example body of a type, made by the builder that makes every real event. */
export function exampleEvent(type: EventType) {
  const { changes, data, comment } = eventCatalogue[type].example;
  return buildEventEnvelope({
    id: 'evt_01JGZ8Q4W6Y2KX3N5P7R9T1V3A',
    type,
    occurredAt: new Date('2026-01-05T09:42:00.000Z'),
    workspace: { domain: 'https://acme.example.com' },
    actor: { id: 7, name: 'Zapier integration' },
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
  const { $schema: _dialect, ...schema } = z.toJSONSchema(eventCatalogue[type].body, {
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
