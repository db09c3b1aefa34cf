// Starting a recovery from the API (a Temporal Client, no worker).
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { SubscriptionIdKey, WorkspaceIdKey } from '../delivery/search-attributes.ts';
import { fairness } from '../delivery/wake.ts';
import { recoverWorkflowId } from './recover.ids.ts';
import { recoverFailedDeliveriesWorkflow, type RecoverInput } from './recover.workflows.ts';

/** The boards a recovery is limited to are the caller's, not part of what it reports. */
export interface Recovery extends Omit<RecoverInput, 'boardIds' | 'workspaceId'> {
  workflowId: string;
  status: 'running' | 'finished';
}

/**
 * Starts the recovery under its business key, with its workspace's fairness key (its tasks take
 * their turn with the workspace's others). One already started under that key (running or
 * finished) is kept and described instead, with the window it was started with: a repeated
 * request starts nothing new.
 */
export async function startRecovery(client: Client, taskQueue: string, input: RecoverInput, requestId: string): Promise<Recovery> {
  const workflowId = recoverWorkflowId(input.subscriptionId, requestId);
  const args: RecoverInput = { subscriptionId: input.subscriptionId, workspaceId: input.workspaceId, since: input.since, until: input.until, boardIds: input.boardIds ?? null };
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
      priority: fairness(input.workspaceId),
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    return { subscriptionId: args.subscriptionId, since: args.since, until: args.until, workflowId, status: 'running' };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return (await describeRecovery(client, input.subscriptionId, workflowId))!;
}

/** The recovery started under `workflowId`, with its window; null when there is none. */
export async function describeRecovery(client: Client, subscriptionId: string, workflowId: string): Promise<Recovery | null> {
  try {
    const existing = await client.workflow.getHandle(workflowId).describe();
    const memo = existing.memo as { since: string; until: string };
    return { subscriptionId, since: memo.since, until: memo.until, workflowId, status: existing.status.name === 'RUNNING' ? 'running' : 'finished' };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}
