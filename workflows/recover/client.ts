// Starting a recovery from the API (a Temporal Client, no worker).
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { SubscriptionIdKey, WorkspaceIdKey } from '../delivery/search-attributes.ts';
import { recoverWorkflowId } from './ids.ts';
import { recoverFailedDeliveriesWorkflow, type RecoverInput } from './workflows.ts';

/** The boards a recovery is limited to are the caller's, not part of what it reports. */
interface Recovery extends Omit<RecoverInput, 'boardIds'> {
  workflowId: string;
  status: 'running' | 'finished';
}

/**
 * Starts the recovery under its business key. One already started under that key (running or
 * finished) is kept and described instead, with the window it was started with: a repeated
 * request starts nothing new.
 */
export async function startRecovery(client: Client, taskQueue: string, input: RecoverInput & { workspaceId: number }, requestId: string): Promise<Recovery> {
  const workflowId = recoverWorkflowId(input.subscriptionId, requestId);
  const args: RecoverInput = { subscriptionId: input.subscriptionId, since: input.since, until: input.until, boardIds: input.boardIds ?? null };
  try {
    await client.workflow.start(recoverFailedDeliveriesWorkflow, {
      workflowId,
      taskQueue,
      args: [args],
      // Temporal Web: filter by subscription and workspace; the memo shows the window.
      typedSearchAttributes: [
        { key: SubscriptionIdKey, value: input.subscriptionId },
        { key: WorkspaceIdKey, value: String(input.workspaceId) },
      ],
      memo: { since: input.since, until: input.until },
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    return { subscriptionId: args.subscriptionId, since: args.since, until: args.until, workflowId, status: 'running' };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  const existing = await client.workflow.getHandle(workflowId).describe();
  const memo = existing.memo as { since?: string; until?: string } | undefined;
  return {
    subscriptionId: input.subscriptionId,
    since: memo?.since ?? input.since,
    until: memo?.until ?? input.until,
    workflowId,
    status: existing.status.name === 'RUNNING' ? 'running' : 'finished',
  };
}
