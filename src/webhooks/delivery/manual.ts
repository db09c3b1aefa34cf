// Manual attempts, in workflow code (no Node built-ins). A re-send or a recovery does not send: it
// asks the subscription's delivery run, the one owner of what the subscription sends, and waits for
// its answers. `requestManualAttempts` writes the requests on the deliveries and wakes the run; the
// run's claim takes them with the due deliveries (within its bound, rate, Retry-After and the
// workspace's cap), its batch sends and records them, and the run signals each workflow that asked
// what came of its deliveries (`answerRequesters`). A request the run settles without sending
// (paused: `held`; deleted or disabled: `cancelled`) is answered too.
import { condition, getExternalWorkflowHandle, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { DeliveryActivities } from './activities.ts';
import { MANUAL_RECHECK_MS } from './constants.ts';
import { manualAnswerSignal, type AttemptResult, type ManualAnswer } from './signals.ts';

const { requestManualAttempts, manualRequestsState } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '1 minute',
  // Thrown errors only (the database or Temporal away): retried without limit, as the run's.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export interface ManualOutcomes {
  /** What came of each delivery asked for (one deleted meanwhile has none). */
  results: Map<string, AttemptResult>;
  /** Deliveries not asked for: MANUAL_REQUESTS_PER_DELIVERY workflows wait for them already. */
  full: string[];
}

/**
 * Asks the subscription's run for a manual attempt of each delivery and waits until each is
 * answered. Deliveries that are not the subscription's (or no longer exist) are in neither list.
 */
export async function manualAttempts(ask: { subscriptionId: string; workspaceId: number; deliveryIds: string[] }): Promise<ManualOutcomes> {
  const requester = workflowInfo().workflowId;
  const results = new Map<string, AttemptResult>();
  setHandler(manualAnswerSignal, (answers) => {
    for (const a of answers) if (!results.has(a.deliveryId)) results.set(a.deliveryId, a.result);
  });
  const { asked, full, at } = await requestManualAttempts({ ...ask, requester });
  const deleted = new Set<string>();
  const answered = () => asked.every((id) => results.has(id) || deleted.has(id));
  // The run answers every request durably; a look now and then covers a delivery deleted meanwhile.
  while (!(await condition(answered, MANUAL_RECHECK_MS))) {
    const left = asked.filter((id) => !results.has(id));
    for (const { deliveryId, waiting, result } of await manualRequestsState({ requester, deliveryIds: left, since: at })) {
      if (results.has(deliveryId) || waiting) continue;
      if (result) results.set(deliveryId, result);
      else deleted.add(deliveryId);
    }
  }
  return { results: new Map(asked.flatMap((id) => (results.has(id) ? [[id, results.get(id)!] as const] : []))), full };
}

/** The run's side: tells each workflow that asked what came of its deliveries (one that has ended is not told). */
export async function answerRequesters(answers: ManualAnswer[] | undefined): Promise<void> {
  if (!answers?.length) return;
  const byRequester = new Map<string, { deliveryId: string; result: AttemptResult }[]>();
  for (const { deliveryId, requesters, result } of answers) {
    for (const requester of requesters) byRequester.set(requester, [...(byRequester.get(requester) ?? []), { deliveryId, result }]);
  }
  await Promise.all([...byRequester].map(([requester, list]) => getExternalWorkflowHandle(requester).signal(manualAnswerSignal, list).catch(() => undefined)));
}
