// Typed search attributes of delivery workflows (registered with the dev server by
// src/temporal/dev-server.ts and on the production server by scripts/cluster/topology.ts), so
// Temporal Web finds a subscription's run, and the run that carried an event by its id. No Node
// built-ins: workflow code imports this.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

const EventIdKey = defineSearchAttributeKey('EventId', SearchAttributeType.KEYWORD);
export const SubscriptionIdKey = defineSearchAttributeKey('SubscriptionId', SearchAttributeType.KEYWORD);
const EventTypeKey = defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD);
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

/**
 * Set when a delivery run starts (wake.ts) and carried through continue-as-new. Which run made an
 * attempt is in the delivery log (`workflowRunId`), not here: a list of event ids per run would
 * have to end the run every 50 events (Temporal's 2 KiB per value).
 */
export function runSearchAttributes(ref: RunRef): SearchAttributePair[] {
  return [
    { key: SubscriptionIdKey, value: ref.subscriptionId },
    { key: WorkspaceIdKey, value: String(ref.workspaceId) },
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
