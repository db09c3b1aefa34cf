// Workflow ids are business keys, readable in Temporal Web. No Node built-ins: workflow code imports this.

/** The delivery of one event to one subscription: starting it twice is harmless. */
export const deliveryWorkflowId = (eventId: string, subscriptionId: string) => `delivery:${eventId}:${subscriptionId}`;

/** One manual re-send of a delivery; `requestId` makes a repeated request start nothing new. */
export const resendWorkflowId = (deliveryId: string, requestId: string) => `resend:${deliveryId}:${requestId}`;

/** Releases a resumed subscription's held deliveries, one at a time in event order. */
export const releaseWorkflowId = (subscriptionId: string) => `release:${subscriptionId}`;
