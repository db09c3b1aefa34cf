// A manual attempt of one delivery from the API (a Temporal Client, no worker): a re-send's
// workflow, which asks the subscription's run (waking a run is wake.ts's). No workflow code imports this.
import { WorkflowExecutionAlreadyStartedError, isGrpcCancelledError, type Client } from '@temporalio/client';
import { resendWorkflowId } from './ids.ts';
import { deliverySearchAttributes, type DeliveryRef } from './search-attributes.ts';
import { fairness } from './wake.ts';
import type { resendDeliveryWorkflow } from './workflows.ts';

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
