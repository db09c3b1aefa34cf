// The webhook event envelope of the spec: {id, type, occurredAt, workspace, actor, changes, data}.
// Built once, when the change happens, and stored as the outbox row's payload, so every delivery
// (and every retry or re-send) carries exactly the same body.

/**
 * Operational events: a subscription's condition changed, or a delivery ran out of attempts. They
 * describe one subscription of the workspace and are never delivered to it (outbox-relay.ts).
 */
export const OPERATIONAL_EVENT_TYPES = ['webhook.paused', 'webhook.disabled', 'webhook.resumed', 'webhook.enabled', 'webhook.delivery_failed'] as const;
export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];

export const EVENT_TYPES = ['ticket.created', 'ticket.updated', 'ticket.state_changed', 'ticket.comment_added', 'webhook.test', ...OPERATIONAL_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const isOperationalEvent = (type: string): type is OperationalEventType => (OPERATIONAL_EVENT_TYPES as readonly string[]).includes(type);

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The account that acted: a person, or the service account of an API key. */
export interface EventActor {
  id: number;
  name: string;
}

export interface FieldChange {
  field: string;
  oldValue: JsonValue;
  newValue: JsonValue;
}

/**
 * `changes`: for ticket.state_changed the single `{field: 'state', oldValue, newValue}` of the
 * spec (state names); for ticket.updated a list of them; null where nothing changed in place
 * (ticket.created, ticket.comment_added, webhook.test). ticket.comment_added also carries the
 * new `comment`.
 */
export interface EventEnvelope {
  id: string;
  type: EventType;
  occurredAt: string;
  /** The workspace address (its domain URL). */
  workspace: string;
  /** null when the service itself made the change (an operational event of the delivery engine). */
  actor: EventActor | null;
  changes: FieldChange | FieldChange[] | null;
  data: JsonValue;
  comment?: JsonValue;
}

export interface EnvelopeInput {
  id: string;
  type: EventType;
  occurredAt: Date;
  workspace: { domain: string };
  actor: EventActor | null;
  changes?: FieldChange | FieldChange[] | null;
  /** The shared ticket representation (for ticket events). */
  data: JsonValue;
  comment?: JsonValue;
}

export function buildEventEnvelope(input: EnvelopeInput): EventEnvelope {
  return {
    id: input.id,
    type: input.type,
    occurredAt: input.occurredAt.toISOString(),
    workspace: input.workspace.domain,
    actor: input.actor && { id: input.actor.id, name: input.actor.name },
    changes: input.changes ?? null,
    data: input.data,
    ...(input.comment !== undefined ? { comment: input.comment } : {}),
  };
}

/** An envelope's members in the spec's order. */
const ENVELOPE_ORDER = ['id', 'type', 'occurredAt', 'workspace', 'actor', 'changes', 'data'];

/**
 * A stored envelope (the outbox row's jsonb, which keeps keys in its own order) with its members
 * in the spec's order, as deliveries send it: what the events feed answers, so that an entry is
 * byte for byte the body webhooks deliver.
 */
export function inEnvelopeOrder(payload: Record<string, unknown>): Record<string, unknown> {
  const ordered: Record<string, unknown> = {};
  for (const key of ENVELOPE_ORDER) if (key in payload) ordered[key] = payload[key];
  for (const key of Object.keys(payload)) if (!(key in ordered)) ordered[key] = payload[key];
  return ordered;
}
