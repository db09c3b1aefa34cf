// Bulk job workflow ids are business keys, readable in Temporal Web. No Node built-ins: workflow code imports this.

/** The one bulk workflow of a workspace: it runs the workspace's jobs one after another, oldest first. */
export const ticketBulkWorkflowId = (workspaceId: number) => `ticket-bulk:${workspaceId}`;
