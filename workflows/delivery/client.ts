// Starting delivery workflows from the API, the relay, the activities and tests (a Temporal
// Client, no worker). No workflow code imports this.
import { WorkflowExecutionAlreadyStartedError, isGrpcCancelledError, type Client } from '@temporalio/client';
import { deliveryRunWorkflowId, resendWorkflowId } from './ids.ts';
import { deliverySearchAttributes, runSearchAttributes, type DeliveryRef, type RunRef } from './search-attributes.ts';
import { wakeSignal } from './signals.ts';
import type { deliveryRunWorkflow, resendDeliveryWorkflow } from './workflows.ts';

/**
 * Temporal's fairness key: on a server with task queue fairness on, each workspace's tasks are
 * dispatched in turn, so one workspace's runs do not queue another's behind them. Activities
 * inherit it from their workflow. Servers without fairness ignore it.
 */
const fairness = (workspaceId: number) => ({ fairnessKey: `workspace:${workspaceId}` });

/**
 * Starts the subscription's delivery run, or signals the running one that `eventIds` joined its
 * queue (signal-with-start): the relay after writing an event's deliveries, a resume, the sweep
 * of overdue deliveries, and a batch that freed room in its workspace's cap.
 */
export async function startDeliveryRun(client: Client, taskQueue: string, ref: RunRef, eventIds: string[] = []): Promise<string> {
  const workflowId = deliveryRunWorkflowId(ref.subscriptionId);
  await client.workflow.signalWithStart<typeof deliveryRunWorkflow, [{ eventIds: string[] }]>('deliveryRunWorkflow', {
    workflowId,
    taskQueue,
    args: [{ subscriptionId: ref.subscriptionId, workspaceId: ref.workspaceId }],
    signal: wakeSignal,
    signalArgs: [{ eventIds }],
    typedSearchAttributes: runSearchAttributes(ref, []),
    priority: fairness(ref.workspaceId),
  });
  return workflowId;
}

/** Wakes the runs of these subscriptions (a run that ended meanwhile is started again: it finds its queue). */
export async function wakeRuns(client: Client, taskQueue: string, subscriptions: RunRef[]): Promise<void> {
  await Promise.all(subscriptions.map((ref) => startDeliveryRun(client, taskQueue, ref)));
}

/**
 * One manual attempt of a delivery; the same `requestId` runs it once. Returns the attempt's result.
 * `stopWaiting` ends the wait for that result (the result is then null), never the start: a caller
 * that answers before the attempt ends does not keep a long poll open on the connection.
 */
export async function resendDelivery(client: Client, taskQueue: string, ref: DeliveryRef, requestId: string, stopWaiting?: AbortSignal) {
  const workflowId = resendWorkflowId(ref.deliveryId, requestId);
  try {
    await client.workflow.start<typeof resendDeliveryWorkflow>('resendDeliveryWorkflow', {
      workflowId,
      taskQueue,
      args: [ref],
      typedSearchAttributes: deliverySearchAttributes(ref),
      priority: fairness(ref.workspaceId),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  const handle = client.workflow.getHandle<typeof resendDeliveryWorkflow>(workflowId);
  if (!stopWaiting) return { workflowId, result: await handle.result() };
  // The SDK cancels a call when its signal fires, not when it had fired before the call.
  if (stopWaiting.aborted) return { workflowId, result: null };
  try {
    return { workflowId, result: await client.withAbortSignal(stopWaiting, () => handle.result()) };
  } catch (err) {
    if (stopWaiting.aborted && isGrpcCancelledError(err)) return { workflowId, result: null };
    throw err;
  }
}
