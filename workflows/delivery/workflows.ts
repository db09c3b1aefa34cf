// Webhook delivery workflows. Workflow code runs in Temporal's deterministic sandbox: no Node
// built-ins, no database; activities are imported as types only.
//
// Held deliveries and event order: while a subscription is paused, an attempt that falls due
// sends nothing and reports `held`, and its workflow waits for a `release` signal. Resuming
// starts releaseHeldDeliveriesWorkflow (one per subscription), which releases the held
// deliveries ONE AT A TIME in event order (Event.seq): it signals the first, waits for that
// delivery's answer after its attempt, then takes the next. So the receiver gets them in event
// order, each with the attempts it had left. Events that occur after the resume are delivered
// at once, as usual.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineSignal,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { AttemptOutcome, AttemptResult, DeliveryActivities } from './activities.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './schedule.ts';
import { deliverySearchAttributes, releaseSearchAttributes, SubscriptionIdKey, type DeliveryRef } from './search-attributes.ts';

const activityOptions: ActivityOptions & LocalActivityOptions = {
  // The receiver's 10 s plus the database work around it.
  startToCloseTimeout: '1 minute',
  // HTTP failures come back as results (the schedule below is their retry); only thrown errors
  // are retried here: an unreachable database, a worker that died mid-attempt. Without limit,
  // since an outage may be long; a delivery that does not exist will never appear.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['DeliveryNotFound'] },
};
const { sendAttempt, nextHeldDelivery } = proxyActivities<DeliveryActivities>(activityOptions);
// A scheduled attempt runs as a local activity: in the worker that runs the workflow, inside its
// workflow task, so an attempt costs no activity task round trip through the server (about half
// the server's work per delivery; see the webhook benchmark in the README). It is short (one
// POST of at most 10 s and, on success, two database statements): what local activities are for.
const local = proxyLocalActivities<DeliveryActivities>(activityOptions);
/** Histories started before local attempts replay with the activity they recorded. */
const LOCAL_ATTEMPTS_PATCH = 'local-attempts';

/**
 * Whether the client set the search attributes when it started this run (client.ts), so the
 * workflow upserts nothing and marks no patch. Runs started without them, by an older client,
 * take the older path (upsert, then the local-attempts patch) and replay as recorded. Decided on
 * the start's attributes, which replay gives back unchanged, rather than with patched(): a patch
 * records a marker AND upserts TemporalChangeVersion, a visibility update per delivery, which is
 * the cost this removes. Deploy workers before the processes that start deliveries.
 */
function startedWithSearchAttributes(): boolean {
  return workflowInfo().typedSearchAttributes.get(SubscriptionIdKey) !== undefined;
}

/** To a held delivery: attempt now, then answer `replyTo` with the outcome. */
export const releaseSignal = defineSignal<[{ replyTo: string }]>('release');
/** A released delivery's answer to the release workflow. */
export const releasedSignal = defineSignal<[{ deliveryId: string; outcome: AttemptOutcome }]>('released');

/** A held delivery looks again this often, in case its subscription was deleted or a release missed it. */
const HELD_RECHECK = '24 hours';
/** How long the release waits for one delivery's answer (an attempt takes at most ~10 s). */
const RELEASE_ANSWER_TIMEOUT = '5 minutes';

export interface DeliveryOutcome {
  status: 'succeeded' | 'failed' | 'cancelled';
  /** The number of the last scheduled attempt reached. */
  attempt: number;
}

/** Delivers one event to one subscription on the schedule of schedule.ts (7 attempts in all). */
export async function deliverEventWorkflow(ref: DeliveryRef): Promise<DeliveryOutcome> {
  let attemptOnce = local.sendAttempt;
  if (!startedWithSearchAttributes()) {
    upsertSearchAttributes(deliverySearchAttributes(ref));
    if (!patched(LOCAL_ATTEMPTS_PATCH)) attemptOnce = sendAttempt;
  }
  let releasedBy: string | undefined;
  setHandler(releaseSignal, ({ replyTo }) => void (releasedBy = replyTo));

  let attempt = 1;
  for (;;) {
    const replyTo = releasedBy;
    releasedBy = undefined;
    const { outcome } = await attemptOnce({ deliveryId: ref.deliveryId, attempt });
    if (replyTo) await answerRelease(replyTo, ref.deliveryId, outcome);

    if (outcome === 'held') {
      // The same attempt again once released (or on the periodic look).
      await condition(() => releasedBy !== undefined, HELD_RECHECK);
      continue;
    }
    if (outcome !== 'failed') return finish({ status: outcome, attempt });
    if (attempt >= MAX_ATTEMPTS) return finish({ status: 'failed', attempt });
    await sleep(RETRY_DELAYS_MS[attempt - 1]);
    attempt += 1;
  }
}

/** One manual attempt of a delivery: the same body and webhook-id, logged with trigger `manual`. */
export async function resendDeliveryWorkflow(ref: DeliveryRef): Promise<AttemptResult> {
  if (!startedWithSearchAttributes()) upsertSearchAttributes(deliverySearchAttributes(ref));
  return await sendAttempt({ deliveryId: ref.deliveryId });
}

/** After a resume: releases the subscription's held deliveries one at a time, in event order. */
export async function releaseHeldDeliveriesWorkflow(input: { subscriptionId: string; skip?: string[] }): Promise<{ released: number; skipped: string[] }> {
  if (!startedWithSearchAttributes()) upsertSearchAttributes(releaseSearchAttributes(input.subscriptionId));
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
      await getExternalWorkflowHandle(next.workflowId).signal(releaseSignal, { replyTo: workflowInfo().workflowId });
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

/**
 * The outcome, once no signal handler is still running. Usually none is: then no promise is made
 * at all, since the SDK gives every promise of workflow code a source-mapped stack trace (for its
 * stack-trace query), a cost per delivery that the benchmark shows. No command either way, so
 * replay is unaffected.
 */
function finish(outcome: DeliveryOutcome): DeliveryOutcome | Promise<DeliveryOutcome> {
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
