// Typed search attributes of delivery workflows (registered with the dev server by
// src/temporal/dev-server.ts and on the production server by scripts/cluster/topology.ts), so
// Temporal Web finds a subscription's run, and the run that carried an event by its id. No Node
// built-ins: workflow code imports this.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const EventIdKey = defineSearchAttributeKey('EventId', SearchAttributeType.KEYWORD);
/** The events a delivery run carried (at most EVENT_IDS_PER_RUN: it continues as new beyond). */
export const EventIdsKey = defineSearchAttributeKey('EventIds', SearchAttributeType.KEYWORD_LIST);
export const SubscriptionIdKey = defineSearchAttributeKey('SubscriptionId', SearchAttributeType.KEYWORD);
export const EventTypeKey = defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD);
export const WorkspaceIdKey = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);

/** A subscription's delivery run. */
export interface RunRef {
  subscriptionId: string;
  workspaceId: number;
}

/** What identifies one delivery to operators; a re-send workflow carries it. */
export interface DeliveryRef {
  deliveryId: string;
  eventId: string;
  subscriptionId: string;
  eventType: string;
  workspaceId: number;
}

/** Set when a delivery run starts (client.ts); the run adds its events' ids as they come. */
export function runSearchAttributes(ref: RunRef, eventIds: string[]): SearchAttributePair[] {
  return [
    { key: SubscriptionIdKey, value: ref.subscriptionId },
    { key: WorkspaceIdKey, value: String(ref.workspaceId) },
    { key: EventIdsKey, value: eventIds },
  ];
}

/** Set when a re-send workflow starts (client.ts). */
export function deliverySearchAttributes(ref: DeliveryRef): SearchAttributePair[] {
  return [
    { key: EventIdKey, value: ref.eventId },
    { key: SubscriptionIdKey, value: ref.subscriptionId },
    { key: EventTypeKey, value: ref.eventType },
    { key: WorkspaceIdKey, value: String(ref.workspaceId) },
  ];
}
