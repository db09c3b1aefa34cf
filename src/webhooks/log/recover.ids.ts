// Recovery workflow ids are business keys, readable in Temporal Web. No Node built-ins: workflow code imports this.

/** One recovery of a subscription's failed deliveries; the same `requestId` starts nothing new. */
export const recoverWorkflowId = (subscriptionId: string, requestId: string) => `recover:${subscriptionId}:${requestId}`;
