// Webhook delivery workflows. Workflow code runs in Temporal's deterministic sandbox: no Node
// built-ins, no database; activities are imported as types only. The design: README.md here.
//
// One delivery run per subscription (`deliveries:<subscriptionId>`), while it has work. The relay
// writes an event's Delivery rows and then signal-with-starts the run: an idle subscription's
// event starts a new run, others join the running one. The run claims the oldest due deliveries
// (a local activity: one transaction, no task), sends each claim as a batch through the signing
// `sendBatch` activity, and sleeps durably until the next attempt falls due, a batch ends or new
// deliveries arrive. It alone decides what its subscription sends, so its bound (AIMD on
// 429/503), rate and Retry-After hold without coordination. It ends when its queue is empty, or
// when the subscription is paused (its deliveries held), deleted or disabled.
import {
  allHandlersFinished,
  condition,
  makeContinueAsNewFunc,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { DeliveryActivities } from './activities.ts';
import { ACTIVITY_RETRY, BATCH_HEARTBEAT_TIMEOUT, BATCH_TIMEOUT, BATCHES_PER_RUN, CAP_RECHECK_MS, CLAIM_RETRY_MS, CLAIM_TIMEOUT, IDLE_LINGER_MS } from './constants.ts';
import type { ClaimedDelivery, ClaimResult } from './queue.repository.ts';
import type { RunWait, WaitReason } from './wait.ts';
import { afterBatch, effectiveInFlight, followSettings, initialRunState, rateAllowance, spendRate, type RunEnd, type RunInput, type SubscriptionSettings } from './run-state.ts';
import { runSearchAttributes, type DeliveryRef } from './search-attributes.ts';
import { stateQuery, wakeSignal, type AttemptResult } from './signals.ts';
import { answerRequesters, manualAttempts } from './manual.ts';

export { stateQuery, wakeSignal };

// HTTP failures come back as results (the seven-attempt schedule is their retry); only thrown
// errors are retried here: an unreachable database, a worker that died mid-batch. Without limit,
// since an outage may be long.
const retry: ActivityOptions['retry'] = ACTIVITY_RETRY;
const { sendBatch } = proxyActivities<DeliveryActivities>({ startToCloseTimeout: BATCH_TIMEOUT, heartbeatTimeout: BATCH_HEARTBEAT_TIMEOUT, retry });
const { claimDue, reportState } = proxyLocalActivities<DeliveryActivities>({ startToCloseTimeout: CLAIM_TIMEOUT, retry });

export interface RunSummary {
  /** Attempts this run (not its predecessors) made. */
  attempted: number;
  /** How it ended (run-state.ts RunEnd): idle, paused, or cancelled (deleted or disabled). */
  ended: RunEnd;
}

/** A subscription's delivery run; see the top of this file and README.md. */
export async function deliveryRunWorkflow(input: RunInput): Promise<RunSummary> {
  const { subscriptionId, workspaceId } = input;
  const runId = workflowInfo().runId;
  let state = input.state ?? initialRunState();
  let settings: SubscriptionSettings | null = null;
  // Counted by every signal: the queue may have grown (or room opened in the workspace's cap). The
  // run is `woken` while it has not claimed since the last one (a new run: at once).
  let wakes = 1;
  let wakesClaimed = 0;
  const woken = () => wakes !== wakesClaimed;
  setHandler(wakeSignal, () => void (wakes += 1));

  /** Deliveries in the run's batches, and the attempts those batches may have open at once (their widths). */
  let inFlight = 0;
  let open = 0;
  let calls = 0;
  let attempted = 0;
  let batchesEnded = 0;
  /** The earliest unclaimed pending delivery's due time, as last seen (null: none). */
  let nextDueAt: number | null = null;
  /** The last claim left due deliveries: more may go as soon as the bound allows. */
  let moreDue = false;
  /**
   * A batch ended since the last claim: the run claims again (it told the relay it would: the
   * claim marks the subscription `runAwake` while a batch is in flight, and the relay does not wake
   * it for the deliveries it writes meanwhile).
   */
  let batchEnded = false;
  let capFull = false;
  /** While capFull: when to look again should no wake-up come. */
  let capRecheckAt = 0;
  /** The subscription was paused, deleted or disabled: no new claims until the batches end, then one last claim settles the queue. */
  let stopping = false;
  let waitingFor: RunWait = 'nothing';
  let until: number | null = null;
  let lastWait: WaitReason | null = null;
  /** The effectiveInFlight and Retry-After the subscription's row shows. */
  let reported = { effectiveInFlight: null as number | null, retryAfterUntil: null as number | null };

  setHandler(stateQuery, () => ({
    subscriptionId,
    inFlight,
    effectiveInFlight: settings ? effectiveInFlight(settings, state.effectiveInFlight) : 0,
    waitingFor,
    until,
    retryAfterUntil: state.retryAfterUntil > Date.now() ? state.retryAfterUntil : null,
    attempted,
    batches: calls,
  }));

  async function runBatch(token: string, deliveries: ClaimedDelivery[], width: number) {
    inFlight += deliveries.length;
    open += width;
    try {
      const r = await sendBatch({ subscriptionId, workspaceId, token, deliveries, width });
      attempted += r.attempted;
      if (settings) state = afterBatch(state, settings, r);
      if (r.nextAttemptAt !== null) nextDueAt = nextDueAt === null ? r.nextAttemptAt : Math.min(nextDueAt, r.nextAttemptAt);
      if (r.stop) stopping = true;
      await answerRequesters(r.answered);
    } finally {
      inFlight -= deliveries.length;
      open -= width;
      batchesEnded += 1;
      batchEnded = true;
      // Its own batch freed room in the workspace's cap: look again without waiting to be woken.
      capFull = false;
    }
  }

  /** Ends the run once no signal handler runs, unless a signal came meanwhile (then false: go on). */
  async function mayEnd(): Promise<boolean> {
    await condition(allHandlersFinished);
    return !woken();
  }

  for (;;) {
    const now = Date.now();
    // The subscription shows the run's effectiveInFlight and Retry-After (one local activity when they change).
    const report = { effectiveInFlight: state.effectiveInFlight, retryAfterUntil: state.retryAfterUntil > now ? state.retryAfterUntil : null };
    if (report.effectiveInFlight !== reported.effectiveInFlight || report.retryAfterUntil !== reported.retryAfterUntil) {
      await reportState({ subscriptionId, ...report });
      reported = report;
    }
    // Its history stays short: it continues as new once its batches have ended (BATCHES_PER_RUN).
    const renew = calls >= BATCHES_PER_RUN || workflowInfo().continueAsNewSuggested;
    if (renew && inFlight === 0) {
      await condition(allHandlersFinished);
      // Every attribute: the ones given here are all the next run has.
      return await makeContinueAsNewFunc<typeof deliveryRunWorkflow>({ typedSearchAttributes: runSearchAttributes({ subscriptionId, workspaceId }) })({ subscriptionId, workspaceId, state });
    }
    const full = settings !== null && open >= effectiveInFlight(settings, state.effectiveInFlight);
    const gate = Math.max(state.retryAfterUntil, settings ? (rateAllowance(state, settings.ratePerSecond, now).nextAt ?? 0) : 0);
    const due = woken() || moreDue || batchEnded || (nextDueAt !== null && nextDueAt <= now);
    const mayClaim = !renew && (stopping ? inFlight === 0 : due && !full && gate <= now && (!capFull || woken() || now >= capRecheckAt));

    if (mayClaim) {
      wakesClaimed = wakes;
      batchEnded = false;
      const token = `${runId}:${++calls}`;
      const claim: ClaimResult = await claimDue({ subscriptionId, workspaceId, runId, token, state, open, now, waitedFor: lastWait, first: calls === 1 });
      await answerRequesters(claim.answered);
      const fresh = claim.settings;
      settings = fresh;
      state = followSettings(state, fresh);
      if (claim.stop) {
        if (inFlight === 0 && (await mayEnd())) return { attempted, ended: claim.stop };
        stopping = true;
        continue;
      }
      stopping = false;
      nextDueAt = claim.nextDueAt;
      capFull = claim.capFull;
      if (capFull) capRecheckAt = now + CAP_RECHECK_MS;
      moreDue = claim.dueNow && !capFull;
      if (claim.deliveries.length) {
        state = spendRate(state, fresh.ratePerSecond, now, claim.deliveries.length);
        lastWait = null;
        // As many at once as the bound had free (a deep batch sends the rest as those end).
        const width = Math.max(1, Math.min(claim.deliveries.length, effectiveInFlight(fresh, state.effectiveInFlight) - open));
        void runBatch(token, claim.deliveries, width);
        continue;
      }
      if (claim.limitedBy) lastWait = claim.limitedBy;
      // Due, yet nothing claimed and nothing in the way (constants.ts CLAIM_RETRY_MS): look again soon, not at once.
      else if (claim.dueNow) {
        moreDue = false;
        nextDueAt = now + CLAIM_RETRY_MS;
      }
      continue;
    }

    // Nothing in flight, nothing pending, no signal since the last claim: the run waits a moment
    // for the next event (IDLE_LINGER_MS), then ends (an event that joins meanwhile comes as a
    // signal before the end, or starts a new run after it).
    if (!stopping && !due && nextDueAt === null && inFlight === 0) {
      if (!(await condition(woken, IDLE_LINGER_MS)) && (await mayEnd())) return { attempted, ended: 'idle' };
      continue;
    }

    // Nothing to claim now: wait for a signal, a batch's end, or the next time something may go.
    const wakeAt = [
      capFull ? capRecheckAt : null,
      gate > now && due ? gate : null,
      !due && nextDueAt !== null && !full ? nextDueAt : null,
    ].filter((t): t is number => t !== null);
    until = wakeAt.length ? Math.min(...wakeAt) : null;
    waitingFor = capFull ? 'workspace_cap' : full && due ? 'in_flight_bound' : gate > now && due ? (gate === state.retryAfterUntil ? 'retry_after' : 'rate') : nextDueAt !== null ? 'next_attempt' : 'nothing';
    if (waitingFor !== 'next_attempt' && waitingFor !== 'nothing') lastWait = waitingFor;
    // A new signal, not one already seen (a run that could not claim on it would otherwise spin).
    const ended = batchesEnded;
    const seen = wakes;
    const changed = () => wakes !== seen || batchesEnded !== ended;
    if (until === null) await condition(changed);
    else await condition(changed, Math.max(1, until - now));
    waitingFor = 'nothing';
    until = null;
  }
}

/**
 * One manual attempt of a delivery, asked of its subscription's run (manual.ts): the same body and
 * webhook-id, logged with trigger `manual` and this workflow's id. `busy`: as many re-sends wait
 * for it already (MANUAL_REQUESTS_PER_DELIVERY); `cancelled`: it no longer exists.
 */
export async function resendDeliveryWorkflow(ref: DeliveryRef): Promise<AttemptResult | { outcome: 'busy' }> {
  const { results, full } = await manualAttempts({ subscriptionId: ref.subscriptionId, workspaceId: ref.workspaceId, deliveryIds: [ref.deliveryId] });
  if (full.length) return { outcome: 'busy' };
  return results.get(ref.deliveryId) ?? { outcome: 'cancelled' };
}
