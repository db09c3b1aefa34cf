// Workflow ids are business keys, readable in Temporal Web. No Node built-ins: workflow code imports this.

/** The delivery of one event to every subscription it matched: starting it twice is harmless. */
export const eventWorkflowId = (eventId: string) => `event:${eventId}`;

/** One manual re-send of a delivery; `requestId` makes a repeated request start nothing new. */
export const resendWorkflowId = (deliveryId: string, requestId: string) => `resend:${deliveryId}:${requestId}`;

/** Releases a resumed subscription's held deliveries, one at a time in event order. */
export const releaseWorkflowId = (subscriptionId: string) => `release:${subscriptionId}`;
