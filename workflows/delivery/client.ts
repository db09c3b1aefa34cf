// Starting delivery workflows from the API, the relay and tests (a Temporal Client, no worker).
import { WorkflowExecutionAlreadyStartedError, isGrpcCancelledError, type Client } from '@temporalio/client';
import { eventWorkflowId, releaseWorkflowId, resendWorkflowId } from './ids.ts';
import { deliverySearchAttributes, eventSearchAttributes, releaseSearchAttributes, type DeliveryRef, type EventDeliveries } from './search-attributes.ts';
import { deliverEventWorkflow, releaseHeldDeliveriesWorkflow, resendDeliveryWorkflow } from './workflows.ts';

/**
 * Temporal's fairness key: on a server with task queue fairness on, each workspace's tasks are
 * dispatched in turn, so one workspace's burst does not queue another's behind it. Activities
 * inherit it from their workflow. Servers without fairness ignore it.
 */
const fairness = (workspaceId: number) => ({ fairnessKey: `workspace:${workspaceId}` });

/**
 * Starts the event's delivery workflow under its business key. Starting it again while it runs,
 * or after it finished, starts nothing: a relay that crashed and retries cannot double a delivery.
 * `eager`: the server hands the first workflow task straight back to a worker of this process
 * (one round trip less); only for a client on the NativeConnection of such a worker.
 */
export async function startEventDelivery(client: Client, taskQueue: string, input: EventDeliveries, options: { eager?: boolean } = {}): Promise<string> {
  const workflowId = eventWorkflowId(input.eventId);
  try {
    await client.workflow.start(deliverEventWorkflow, {
      workflowId,
      taskQueue,
      args: [input],
      // Set here rather than upserted by the workflow: no extra command and visibility update.
      typedSearchAttributes: eventSearchAttributes(input),
      priority: fairness(input.workspaceId),
      requestEagerStart: options.eager ?? false,
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
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

/**
 * One manual attempt of a delivery; the same `requestId` runs it once. Returns the attempt's result.
 * `stopWaiting` ends the wait for that result (the result is then null), never the start: a caller
 * that answers before the attempt ends does not keep a long poll open on the connection.
 */
export async function resendDelivery(client: Client, taskQueue: string, ref: DeliveryRef, requestId: string, stopWaiting?: AbortSignal) {
  const workflowId = resendWorkflowId(ref.deliveryId, requestId);
  try {
    await client.workflow.start(resendDeliveryWorkflow, {
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
