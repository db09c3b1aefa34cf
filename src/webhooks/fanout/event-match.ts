// Which subscriptions an event goes to (the outbox relay's fan-out): the rules of event types,
// board filters, the ticket.updated field filter, operational events and the owner's role.
import type { ClaimedEvent } from './relay.repository.ts';

/** How `changes` names a custom field: `fields.<id>`. A filter names it by its id (either form is accepted). */
const CUSTOM_FIELD_PREFIX = 'fields.';
/** A field as a field filter names it: a custom field by its id (the subscription service saves filters so). */
export const fieldFilterName = (field: string) => (field.startsWith(CUSTOM_FIELD_PREFIX) ? field.slice(CUSTOM_FIELD_PREFIX.length) : field);

/** A subscription as the relay reads it (relayRepository.subscriptionsForRelay). */
export interface SubscriptionMatch {
  id: string;
  workspaceId: number;
  events: string[];
  boardIds: string[];
  fields: string[];
  /** full or thin: recorded on each delivery written for it (thin-payload.ts). */
  payload: string;
  /** The boards its owner's role sees now (the key's service account, or the person who made it); null: every board. */
  ownerBoards: string[] | null;
}

/** Within a board filter (empty, or null: none): every one of `boards`, and at least one. */
const withinBoards = (filter: string[] | null, boards: (string | null)[]) =>
  filter === null || filter.length === 0 || (boards.length > 0 && boards.every((b) => b !== null && filter.includes(b)));

/**
 * The subscriptions an event goes to: webhook.test to its one target; others by event type, then:
 * - an operational event never to the subscription it is about, and to a subscription limited to
 *   boards only when the one it is about is limited to some of those boards (so a role that sees
 *   only some boards learns nothing of subscriptions it could not see: webhook.service visibleTo);
 * - a ticket event by the board filter, and ticket.updated also by the field filter (one of the
 *   changed fields named; none named: every update).
 * An operational event's boards are its subscription's filter when it was written (aboutBoardIds).
 * Both kinds also within the boards its owner's role sees now: a key whose role was narrowed
 * after it made a subscription (or a person moved to such a role) gets no event of a board it
 * may no longer read (the same rule as its reads: a key never sees more than its role).
 */
export function matchingSubscriptions(event: ClaimedEvent, subscriptions: SubscriptionMatch[]): SubscriptionMatch[] {
  const about = event.aboutSubscriptionId;
  return subscriptions.filter((s) => {
    if (s.workspaceId !== event.workspaceId) return false;
    if (event.targetSubscriptionId !== null) return s.id === event.targetSubscriptionId;
    if (!s.events.includes(event.type)) return false;
    if (about !== null) {
      const boards = event.aboutBoardIds;
      if (s.ownerBoards !== null && !withinBoards(s.ownerBoards, boards)) return false;
      return s.id !== about && withinBoards(s.boardIds, boards);
    }
    if (s.fields.length && event.changedFields && !event.changedFields.some((f) => s.fields.includes(fieldFilterName(f)))) return false;
    if (s.ownerBoards !== null && !withinBoards(s.ownerBoards, [event.boardId])) return false;
    return withinBoards(s.boardIds, [event.boardId]);
  });
}
