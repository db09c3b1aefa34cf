// Typed search attributes of delivery workflows (registered with the dev server by
// src/temporal/dev-server.ts), so Temporal Web can filter deliveries by subscription, event
// type and workspace. No Node built-ins: workflow code imports this.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const SubscriptionIdKey = defineSearchAttributeKey('SubscriptionId', SearchAttributeType.KEYWORD);
export const EventTypeKey = defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD);
export const WorkspaceIdKey = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);

/** What identifies a delivery to operators; every delivery workflow carries it. */
export interface DeliveryRef {
  deliveryId: string;
  eventId: string;
  subscriptionId: string;
  eventType: string;
  workspaceId: number;
}

/** Set when a delivery or re-send workflow starts (client.ts). */
export function deliverySearchAttributes(ref: DeliveryRef): SearchAttributePair[] {
  return [
    { key: SubscriptionIdKey, value: ref.subscriptionId },
    { key: EventTypeKey, value: ref.eventType },
    { key: WorkspaceIdKey, value: String(ref.workspaceId) },
  ];
}

/** Set when a subscription's release workflow starts (client.ts). */
export function releaseSearchAttributes(subscriptionId: string): SearchAttributePair[] {
  return [{ key: SubscriptionIdKey, value: subscriptionId }];
}
