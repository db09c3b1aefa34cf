// The one way to wake a subscription's delivery run: signal-with-start of its business key, which
// signals the running run or starts one (its queue is in the database, so a new run finds it).
// Used by the relay after writing an event's deliveries, a resume, the sweep of overdue
// deliveries, a batch that freed room in its workspace's cap and a manual attempt's request (the
// activities import this, so it names the workflow by its type's name).
import type { Client } from '@temporalio/client';
import { deliveryRunWorkflowId } from './ids.ts';
import type { RunInput } from './run-state.ts';
import { runSearchAttributes, type RunRef } from './search-attributes.ts';
import { wakeSignal } from './signals.ts';

/**
 * Temporal's fairness key: on a server with task queue fairness on, each workspace's tasks are
 * dispatched in turn, so one workspace's runs do not queue another's behind them. Activities
 * inherit it from their workflow. Servers without fairness ignore it.
 */
export const fairness = (workspaceId: number) => ({ fairnessKey: `workspace:${workspaceId}` });

/** Wakes the subscription's delivery run: signals the running one that its queue changed, or starts one. */
export async function wakeRun(client: Client, taskQueue: string, ref: RunRef): Promise<string> {
  const workflowId = deliveryRunWorkflowId(ref.subscriptionId);
  await client.workflow.signalWithStart<(input: RunInput) => Promise<unknown>, []>('deliveryRunWorkflow', {
    workflowId,
    taskQueue,
    args: [{ subscriptionId: ref.subscriptionId, workspaceId: ref.workspaceId }],
    signal: wakeSignal,
    signalArgs: [],
    typedSearchAttributes: runSearchAttributes(ref),
    priority: fairness(ref.workspaceId),
  });
  return workflowId;
}

/** Wakes the runs of these subscriptions (a run that ended meanwhile is started again: it finds its queue). */
export async function wakeRuns(client: Client, taskQueue: string, subscriptions: RunRef[]): Promise<void> {
  await Promise.all(subscriptions.map((ref) => wakeRun(client, taskQueue, ref)));
}
