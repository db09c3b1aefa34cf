// Thin event bodies (docs/integrators/webhooks.md, "Thin payloads"): a ticket event reduced to the
// ticket's id, its version after the change, the names of the fields that changed and the link
// to fetch it, so that no ticket content travels or rests on the receiver's side. Made from the
// stored envelope alone (and the service's public base URL), so every attempt of a delivery
// sends the same bytes. Events that are not about a ticket (webhook.*) carry no ticket content
// and go out unchanged.
import type { EventType, FieldChange, JsonValue } from './event.envelope.ts';

export const TICKET_EVENT_TYPES = ['ticket.created', 'ticket.updated', 'ticket.state_changed', 'ticket.comment_added'] as const satisfies readonly EventType[];
export type TicketEventType = (typeof TICKET_EVENT_TYPES)[number];
export const isTicketEvent = (type: unknown): type is TicketEventType => (TICKET_EVENT_TYPES as readonly unknown[]).includes(type);

export interface ThinTicketData {
  object: 'ticket';
  id: number;
  /** The ticket's version right after the change: its ETag is `"<version>"` until it changes again. */
  version: number;
  /** What changed: ticket.updated the `changes` fields, ticket.state_changed `state`, ticket.comment_added `comments`; ticket.created none. */
  changedFields: string[];
  /** GET it (with the key's `tickets:read`). */
  url: string;
  /** ticket.comment_added: the new comment's id. */
  commentId?: number;
}

function changedFieldsOf(type: TicketEventType, changes: unknown): string[] {
  if (type === 'ticket.created') return [];
  if (type === 'ticket.comment_added') return ['comments'];
  const list = (Array.isArray(changes) ? changes : changes ? [changes] : []) as FieldChange[];
  return [...new Set(list.map((c) => c.field).filter((f) => typeof f === 'string'))];
}

/**
 * The thin form of a stored envelope: the same members, with `changes` null (it holds old and new
 * values), `data` the ticket reference, no `comment`, and `payload: "thin"` to say so (which also
 * keeps the two forms of a type apart in the OpenAPI document's `oneOf`). Anything else is
 * returned as it is.
 */
export function thinEnvelope(envelope: unknown, publicBaseUrl: string): unknown {
  if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope)) return envelope;
  const { comment, ...rest } = envelope as Record<string, unknown>;
  const ticket = rest.data as { id?: unknown; version?: unknown } | null;
  if (!isTicketEvent(rest.type) || !ticket || typeof ticket.id !== 'number' || typeof ticket.version !== 'number') return envelope;
  const data: ThinTicketData = {
    object: 'ticket',
    id: ticket.id,
    version: ticket.version,
    changedFields: changedFieldsOf(rest.type, rest.changes),
    url: `${publicBaseUrl.replace(/\/+$/, '')}/tickets/${ticket.id}`,
  };
  const commentId = (comment as { id?: unknown } | undefined)?.id;
  if (rest.type === 'ticket.comment_added' && typeof commentId === 'number') data.commentId = commentId;
  return { ...rest, changes: null, data: data as unknown as JsonValue, payload: 'thin' };
}
