// Workflow ids are business keys, readable in Temporal Web. No Node built-ins: workflow code imports this.

/** A subscription's delivery run: at most one at a time; an event of an idle subscription starts one, others join it. */
export const deliveryRunWorkflowId = (subscriptionId: string) => `deliveries:${subscriptionId}`;

/** One manual re-send of a delivery; `requestId` makes a repeated request start nothing new. */
export const resendWorkflowId = (deliveryId: string, requestId: string) => `resend:${deliveryId}:${requestId}`;
