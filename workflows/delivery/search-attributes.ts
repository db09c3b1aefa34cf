// Typed search attributes of delivery workflows (registered with the dev server by
// src/temporal/dev-server.ts and on the production server by scripts/cluster/topology.ts), so
// Temporal Web finds an event's delivery by event id or by any of its subscriptions, and filters
// by event type and workspace. No Node built-ins: workflow code imports this.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const EventIdKey = defineSearchAttributeKey('EventId', SearchAttributeType.KEYWORD);
export const SubscriptionIdsKey = defineSearchAttributeKey('SubscriptionIds', SearchAttributeType.KEYWORD_LIST);
export const SubscriptionIdKey = defineSearchAttributeKey('SubscriptionId', SearchAttributeType.KEYWORD);
export const EventTypeKey = defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD);
export const WorkspaceIdKey = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);

/** One event's deliveries: the input of its workflow (one per event). */
export interface EventDeliveries {
  eventId: string;
  eventType: string;
  workspaceId: number;
  /** One per matching subscription, each delivered on its own schedule. */
  deliveries: { deliveryId: string; subscriptionId: string }[];
}

/** What identifies one delivery to operators; a re-send workflow carries it. */
export interface DeliveryRef {
  deliveryId: string;
  eventId: string;
  subscriptionId: string;
  eventType: string;
  workspaceId: number;
}

/** Set when an event's delivery workflow starts (client.ts). */
export function eventSearchAttributes(input: EventDeliveries): SearchAttributePair[] {
  return [
    { key: EventIdKey, value: input.eventId },
    { key: SubscriptionIdsKey, value: input.deliveries.map((d) => d.subscriptionId) },
    { key: EventTypeKey, value: input.eventType },
    { key: WorkspaceIdKey, value: String(input.workspaceId) },
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

/** Set when a subscription's release workflow starts (client.ts). */
export function releaseSearchAttributes(subscriptionId: string): SearchAttributePair[] {
  return [{ key: SubscriptionIdKey, value: subscriptionId }];
}
