// Webhook delivery workflows. Workflow code runs in Temporal's deterministic sandbox: no Node
// built-ins, no database; activities are imported as types only.
//
// One workflow per event (`event:<eventId>`): it delivers the event to each subscription it
// matched, each delivery on its own schedule (seven attempts, jittered delays), with its own hold
// and release and its subscription's bounds. An attempt to a receiver that answers fast runs in
// the workflow task (a local activity); to any other receiver it is a regular activity, so a slow
// receiver's attempt holds an activity slot of the worker for as long as it takes, never a
// workflow-task slot (placement.ts). An attempt beyond its subscription's bound returns
// `waiting` (a fast receiver's after a brief wait for a slot in the worker) and the workflow
// waits durably for a slot, the rate or a Retry-After, holding nothing.
//
// Held deliveries and event order: while a subscription is paused, an attempt that falls due
// sends nothing and reports `held`, and that delivery waits for a `release` signal naming it.
// Resuming starts releaseHeldDeliveriesWorkflow (one per subscription), which releases the held
// deliveries ONE AT A TIME in event order (Event.seq): it signals the first, waits for that
// delivery's answer after its attempt, then takes the next. So the receiver gets them in event
// order, each with the attempts it had left. Events that occur after the resume are delivered
// at once, as usual.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AttemptOutcome, AttemptResult, DeliveryActivities, Waited } from './activities.ts';
import { jitteredDelay, MAX_ATTEMPTS, retryDelay } from './schedule.ts';
import type { DeliveryRef, EventDeliveries } from './search-attributes.ts';
import { releasedSignal, releaseSignal, slotSignal } from './signals.ts';

export { releasedSignal, releaseSignal, slotSignal };

const activityOptions: ActivityOptions = {
  // The receiver's 10 s plus the database work around it.
  startToCloseTimeout: '1 minute',
  // HTTP failures come back as results (the schedule below is their retry); only thrown errors
  // are retried here: an unreachable database, a worker that died mid-attempt. Without limit,
  // since an outage may be long; a delivery that does not exist will never appear.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['DeliveryNotFound'] },
};
const { sendAttempt, nextHeldDelivery } = proxyActivities<DeliveryActivities>(activityOptions);
// An attempt is first tried inside the workflow task (activities/placement.ts): sent there to a
// receiver known to answer fast, else only its slot taken and the attempt sent as a regular activity.
const { sendAttempt: attemptInTask } = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: activityOptions.startToCloseTimeout,
  retry: activityOptions.retry,
});

/** A held delivery looks again this often, in case its subscription was deleted or a release missed it. */
const HELD_RECHECK = '24 hours';
/** A delivery waiting for a slot looks again after this, unless the activity said when: should the hand-over signal not come (its slot's holder died). */
const SLOT_RECHECK_MS = 45_000;
/** How long the release waits for one delivery's answer (an attempt takes at most ~10 s, plus any wait for a slot). */
const RELEASE_ANSWER_TIMEOUT = '5 minutes';

export interface DeliveryOutcome {
  status: 'succeeded' | 'failed' | 'cancelled';
  /** The number of the last scheduled attempt reached. */
  attempt: number;
}

export interface EventOutcome {
  deliveries: (DeliveryOutcome & { deliveryId: string; subscriptionId: string })[];
}

/** Delivers one event to each of its subscriptions, each on the schedule of schedule.ts (7 attempts). */
export async function deliverEventWorkflow(input: EventDeliveries): Promise<EventOutcome> {
  const releasedBy = new Map<string, string>();
  const granted = new Set<string>();
  setHandler(releaseSignal, ({ replyTo, deliveryId }) => void releasedBy.set(deliveryId, replyTo));
  setHandler(slotSignal, ({ deliveryId }) => void granted.add(deliveryId));

  async function deliver(deliveryId: string): Promise<DeliveryOutcome> {
    let attempt = 1;
    let rateReservedAt: number | undefined;
    let waited: Waited | undefined;
    // Drawn once per attempt, before it: a replay draws the same.
    let jittered = jitteredDelay(attempt, Math.random());
    for (;;) {
      const replyTo = releasedBy.get(deliveryId);
      releasedBy.delete(deliveryId);
      granted.delete(deliveryId);
      const input = { deliveryId, attempt, retryDelayMs: jittered, rateReservedAt, waited };
      let result = await attemptInTask({ ...input, local: true });
      if (result.outcome === 'remote') result = await sendAttempt({ ...input, placed: true });

      if (result.outcome === 'waiting') {
        // Not an attempt: the release that asked for it is answered after the real one.
        if (replyTo) releasedBy.set(deliveryId, replyTo);
        const since = Date.now();
        const wait = result.wait!;
        if (wait.reason === 'in_flight_bound') await condition(() => granted.has(deliveryId), Math.max(1, (wait.untilMs ?? since + SLOT_RECHECK_MS) - since));
        else await sleep(Math.max(1, (wait.untilMs ?? since) - since));
        if (wait.reason === 'rate') rateReservedAt = wait.untilMs ?? since;
        waited = longer(waited, { reason: wait.reason, ms: Date.now() - since });
        continue;
      }
      if (replyTo) await answerRelease(replyTo, deliveryId, result.outcome);
      rateReservedAt = undefined;
      waited = undefined;

      if (result.outcome === 'held') {
        // The same attempt again once released (or on the periodic look).
        await condition(() => releasedBy.has(deliveryId), HELD_RECHECK);
        continue;
      }
      if (result.outcome === 'succeeded' || result.outcome === 'cancelled') return { status: result.outcome, attempt };
      if (attempt >= MAX_ATTEMPTS || jittered === undefined) return { status: 'failed', attempt };
      const { delayMs, retryAfterMs } = retryDelay(attempt, jittered, result.retryAfterMs);
      await sleep(delayMs);
      if (retryAfterMs > 0) waited = { reason: 'retry_after', ms: retryAfterMs };
      attempt += 1;
      jittered = jitteredDelay(attempt, Math.random());
    }
  }

  const outcomes = await Promise.all(
    input.deliveries.map(async (d) => ({ deliveryId: d.deliveryId, subscriptionId: d.subscriptionId, ...(await deliver(d.deliveryId)) })),
  );
  return finish({ deliveries: outcomes });
}

/** One manual attempt of a delivery: the same body and webhook-id, logged with trigger `manual`. */
export async function resendDeliveryWorkflow(ref: DeliveryRef): Promise<AttemptResult> {
  return await sendAttempt({ deliveryId: ref.deliveryId });
}

/** After a resume: releases the subscription's held deliveries one at a time, in event order. */
export async function releaseHeldDeliveriesWorkflow(input: { subscriptionId: string; skip?: string[] }): Promise<{ released: number; skipped: string[] }> {
  const answers = new Map<string, AttemptOutcome>();
  setHandler(releasedSignal, ({ deliveryId, outcome }) => void answers.set(deliveryId, outcome));
  const skip = [...(input.skip ?? [])];
  let released = 0;

  for (;;) {
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return await continueAsNew<typeof releaseHeldDeliveriesWorkflow>({ subscriptionId: input.subscriptionId, skip });
    }
    const next = await nextHeldDelivery({ subscriptionId: input.subscriptionId, skip });
    if (!next) break;
    try {
      await getExternalWorkflowHandle(next.workflowId).signal(releaseSignal, { replyTo: workflowInfo().workflowId, deliveryId: next.id });
    } catch {
      // Its workflow no longer runs, so nothing would ever answer.
      skip.push(next.id);
      continue;
    }
    if (!(await condition(() => answers.has(next.id), RELEASE_ANSWER_TIMEOUT))) {
      skip.push(next.id);
      continue;
    }
    // Held again: the subscription was paused again; the next resume goes on from here.
    if (answers.get(next.id) === 'held') break;
    released += 1;
  }
  await condition(allHandlersFinished);
  return { released, skipped: skip };
}

/** The longer of two waits (the log shows the main reason an attempt was late), their time summed. */
function longer(a: Waited | undefined, b: Waited): Waited {
  if (!a) return b;
  return { reason: a.ms >= b.ms ? a.reason : b.reason, ms: a.ms + b.ms };
}

/**
 * The outcome, once no signal handler is still running. Usually none is: then no promise is made
 * at all, since the SDK gives every promise of workflow code a source-mapped stack trace (for its
 * stack-trace query), a cost per delivery that the benchmark shows. No command either way, so
 * replay is unaffected.
 */
function finish(outcome: EventOutcome): EventOutcome | Promise<EventOutcome> {
  if (allHandlersFinished()) return outcome;
  return condition(allHandlersFinished).then(() => outcome);
}

async function answerRelease(replyTo: string, deliveryId: string, outcome: AttemptOutcome): Promise<void> {
  try {
    await getExternalWorkflowHandle(replyTo).signal(releasedSignal, { deliveryId, outcome });
  } catch {
    // The release gave up waiting and finished: there is no one to tell.
  }
}
