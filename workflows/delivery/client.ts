// Starting delivery workflows from the API, the relay and tests (a Temporal Client, no worker).
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { deliveryWorkflowId, releaseWorkflowId, resendWorkflowId } from './ids.ts';
import { deliverySearchAttributes, releaseSearchAttributes, type DeliveryRef } from './search-attributes.ts';
import { deliverEventWorkflow, releaseHeldDeliveriesWorkflow, resendDeliveryWorkflow } from './workflows.ts';

/** Starts a workflow under its business key; one already running or finished under it is kept. */
async function startOnce(client: Client, workflow: typeof deliverEventWorkflow | typeof resendDeliveryWorkflow, workflowId: string, taskQueue: string, ref: DeliveryRef, eager = false) {
  try {
    await client.workflow.start(workflow, {
      workflowId,
      taskQueue,
      args: [ref],
      // Set here rather than upserted by the workflow: no extra command and visibility update.
      typedSearchAttributes: deliverySearchAttributes(ref),
      requestEagerStart: eager,
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * Starts the delivery's workflow under its business key. Starting it again while it runs, or
 * after it finished, starts nothing: a relay that crashed and retries cannot double a delivery.
 * `eager`: the server hands the first workflow task straight back to a worker of this process
 * (one round trip less); only for a client on the NativeConnection of such a worker.
 */
export async function startDeliveryWorkflow(client: Client, taskQueue: string, ref: DeliveryRef, options: { eager?: boolean } = {}): Promise<string> {
  const workflowId = deliveryWorkflowId(ref.eventId, ref.subscriptionId);
  await startOnce(client, deliverEventWorkflow, workflowId, taskQueue, ref, options.eager);
  return workflowId;
}

/** After a resume: sends the held deliveries in event order (one release workflow per subscription). */
export async function releaseHeldDeliveries(client: Client, taskQueue: string, subscriptionId: string): Promise<string> {
  const workflowId = releaseWorkflowId(subscriptionId);
  // A release already under way takes the lowest held delivery each time, so it covers this resume too.
  await client.workflow.start(releaseHeldDeliveriesWorkflow, {
    workflowId,
    taskQueue,
    args: [{ subscriptionId }],
    typedSearchAttributes: releaseSearchAttributes(subscriptionId),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return workflowId;
}

/** One manual attempt of a delivery; the same `requestId` runs it once. Returns the attempt's result. */
export async function resendDelivery(client: Client, taskQueue: string, ref: DeliveryRef, requestId: string) {
  const workflowId = resendWorkflowId(ref.deliveryId, requestId);
  await startOnce(client, resendDeliveryWorkflow, workflowId, taskQueue, ref);
  return { workflowId, result: await client.workflow.getHandle<typeof resendDeliveryWorkflow>(workflowId).result() };
}
