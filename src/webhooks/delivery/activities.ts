// The delivery activities, built by a factory that receives their dependencies (the worker hands
// in the configured ones, tests their own CA, clock and cap). The delivery run (workflows.ts)
// calls `claimDue` as a local activity and `sendBatch` as a regular one; a workflow that asks for
// manual attempts (a re-send, a recovery: manual.ts) calls `requestManualAttempts`.
//
// HTTP failures are results, not exceptions: the seven-attempt schedule is their retry, and each
// failed delivery's next attempt is written to its row (nextAttemptAt) with its jitter. Anything
// thrown (the database is down, the worker died mid-batch) is retried by Temporal: a retry takes
// the batch's deliveries over under a new claim, so an attempt of the dead worker that still
// answers records nothing (the receiver may get that delivery twice, with the same webhook-id).
import { activityInfo, cancellationSignal, getClient, heartbeat } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { config } from '../../config.ts';
import { deliveryRepository, type AttemptContext, type SuccessItem } from './delivery.repository.ts';
import { parseRetryAfter } from '../message/retry-after.ts';
import { configuredMailer, emailConditionNotice, type MailerSettings } from './condition-notice-mail.ts';
import type { ConditionNotice } from './condition-notice.ts';
import { activeSecrets, signatureHeaders } from '../message/signing.ts';
import { createWebhookSender, deliveryBody, type SenderOptions } from '../message/webhook-sender.ts';
import { createBrokerSenders } from '../message/destinations/senders.ts';
import { DELIVERY_TIMEOUT_MS } from '../message/constants.ts';
import { orderKeyOf, type BrokerOutcome, type Verdict } from '../message/destinations/sender.ts';
import { logger } from '../../logger.ts';
import { deliveredPayload } from '../message/thin-payload.ts';
import { newId } from '../../ids.ts';
import { countAttempt } from '../../metrics/delivery-metrics.ts';
import { annotateSpan } from '../../tracing/tracing.ts';
import { BATCH_HEARTBEAT_MS, MAX_BATCH } from './constants.ts';
import { interleave } from './interleave.ts';
import { queueRepository, type ClaimedDelivery, type ClaimResult } from './queue.repository.ts';
import type { WaitReason } from './wait.ts';
import { depthOf, effectiveInFlight, followSettings, rateAllowance, type RunState, type RunStop } from './run-state.ts';
import { jitteredDelay, maxAttemptsOf, remainingSpanMs, retryDelay } from '../message/schedule.ts';
import { retryDelaysMs } from '../message/retry-schedule.ts';
import { wakeRun, wakeRuns } from './wake.ts';
import { manualRepository } from './manual.repository.ts';
import type { AttemptResult, ManualAnswer } from './signals.ts';
import { withDatabaseLane, workspaceLane } from '../../db/fair-turns.ts';

export interface DeliveryActivityDeps {
  /** Lifts the URL policy's address rule; defaults to WEBHOOK_ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets?: boolean;
  /** Extra CAs for receivers' certificates, besides the default store. */
  tls?: Pick<SenderOptions, 'ca'>;
  /**
   * The time attempts are logged and scheduled at, and the rotation window is judged at. Tests on
   * the time-skipping server pass its clock. (`webhook-timestamp` is always the wall clock: it is
   * what receivers compare it with.)
   */
  clock?: () => Date | Promise<Date>;
  /** E-mail for pause and disable notices; defaults to SMTP_URL when set. null: no e-mail. */
  mailer?: MailerSettings | null;
  timeoutMs?: number;
  /** Wakes the runs that wait for room in their workspace's cap. Without it they look again after CAP_RECHECK_MS. */
  client?: Client;
  /** The Temporal task queue of the runs it wakes; defaults to the configured one. */
  taskQueue?: string;
  /** A workspace's attempts in flight at most (WEBHOOK_WORKSPACE_MAX_IN_FLIGHT). */
  workspaceCap?: number;
  /** A subscription's bound at most (WEBHOOK_MAX_IN_FLIGHT_LIMIT). */
  maxInFlightLimit?: number;
}

export interface ClaimDueInput {
  subscriptionId: string;
  workspaceId: number;
  runId: string;
  token: string;
  state: RunState;
  /** Attempts the run's batches may have open at once (their widths): effectiveInFlight less these is free. */
  open: number;
  /** The workflow's time (epoch ms), for the rate. */
  now: number;
  /** The run's first claim (it frees claims of earlier runs); absent (a caller outside a run): true. */
  first?: boolean;
  waitedFor: WaitReason | null;
}

export interface SendBatchInput {
  subscriptionId: string;
  /** Whose turns its statements take on the embedded database. */
  workspaceId: number;
  token: string;
  /** In event order; sent `width` at a time, the next as one ends. */
  deliveries: ClaimedDelivery[];
  /** Attempts open at once at most (the room under effectiveInFlight at the claim). */
  width: number;
}

export interface BatchResult {
  /** Attempts made and recorded by this batch. */
  attempted: number;
  succeeded: number;
  /** A 429 or 503 among the answers. */
  overloaded: boolean;
  /** An attempt that got no answer at all among them (time-out, connection refused or reset; a broker's retry). */
  unanswered: boolean;
  /** The latest Retry-After among the answers (epoch ms), within what remains of a schedule. */
  retryAfterUntil: number | null;
  /** The earliest next attempt of a delivery that failed (epoch ms). */
  nextAttemptAt: number | null;
  /** The answers paused (20 failures in a row) or disabled (410) the subscription. */
  stop: RunStop | null;
  /** The slowest answer, ms (null: nothing sent). */
  slowestMs: number | null;
  /** The manual attempts it recorded, for the run to answer the workflows that asked. Absent: none. */
  answered?: ManualAnswer[];
}

export interface ManualRequestInput {
  subscriptionId: string;
  workspaceId: number;
  deliveryIds: string[];
  /** The workflow that asks (a re-send's, a recovery's): the run answers it. */
  requester: string;
}

/** An attempt's answer: an HTTPS response (its status), or a broker's outcome (its verdict, no status). */
type AttemptAnswer = Awaited<ReturnType<ReturnType<typeof createWebhookSender>['send']>> & { verdict?: Verdict };

interface Sent {
  delivery: AttemptContext;
  claimed: ClaimedDelivery;
  attemptedAt: Date;
  body: string;
  result: AttemptAnswer;
}

/** What an attempt's answer means to the engine, whatever the destination: a 2xx or an acknowledgement; a 429/503 or a broker's throttling; a 410 or a broker's refusal for good. */
const delivered = (r: AttemptAnswer) => (r.verdict ? r.verdict === 'delivered' : r.httpStatus !== undefined && r.httpStatus >= 200 && r.httpStatus < 300);
const overloadedBy = (r: AttemptAnswer) => r.httpStatus === 429 || r.httpStatus === 503 || r.verdict === 'throttled';
const goneBy = (r: AttemptAnswer) => r.httpStatus === 410 || r.verdict === 'permanent';
/** No answer at all: an HTTPS attempt without a status (time-out, refused, reset, refused by the URL rule), or a broker's `retry` (unreachable, timed out, not acknowledged). */
const unansweredBy = (r: AttemptAnswer) => (r.verdict ? r.verdict === 'retry' : r.httpStatus === undefined);
const answerOfBroker = (o: BrokerOutcome): AttemptAnswer => ({ verdict: o.verdict, durationMs: o.durationMs, ...(o.ack ? { responseExcerpt: o.ack } : {}), ...(o.error ? { error: o.error } : {}) });

export function createDeliveryActivities(deps: DeliveryActivityDeps = {}) {
  const sender = createWebhookSender({ allowPrivateTargets: deps.allowPrivateTargets, ca: deps.tls?.ca, timeoutMs: deps.timeoutMs });
  const brokers = createBrokerSenders();
  const allowPrivateTargets = deps.allowPrivateTargets ?? config.webhooks.allowPrivateTargets;
  const clock = deps.clock ?? (() => new Date());
  const mailer = deps.mailer === undefined ? configuredMailer() : (deps.mailer ?? undefined);
  const workspaceCap = deps.workspaceCap ?? config.webhooks.workspaceMaxInFlight;
  const maxInFlightLimit = deps.maxInFlightLimit ?? config.webhooks.maxInFlightLimit;
  const taskQueue = deps.taskQueue ?? config.temporal.taskQueue;

  /** The signed message of one attempt (the same body and headers to any destination). */
  async function prepare(delivery: AttemptContext) {
    const attemptedAt = await clock();
    const body = deliveryBody(deliveredPayload(delivery.event.payload, delivery.payloadMode));
    const headers = signatureHeaders({ id: delivery.event.id, body, timestamp: new Date(), secrets: activeSecrets(delivery.subscription, attemptedAt) });
    return { attemptedAt, body, headers };
  }

  async function send(delivery: AttemptContext, claimed: ClaimedDelivery): Promise<Sent> {
    const { attemptedAt, body, headers } = await prepare(delivery);
    return { delivery, claimed, attemptedAt, body, result: await sender.send(delivery.subscription.url, headers, body, { workspaceId: delivery.event.workspaceId }) };
  }

  /**
   * A broker destination's batch: in event order, `width` at a time at most (a broker's batch call
   * within its own maximum), each call after the last one's acknowledgements; none after a message
   * that was not delivered. What was not sent goes back unsent, as with HTTPS.
   */
  async function sendToBroker(items: ClaimedDelivery[], width: number, contexts: Map<string, AttemptContext>, stopped: () => boolean): Promise<{ sent: Sent[]; unstarted: ClaimedDelivery[] }> {
    const sent: Sent[] = [];
    let next = 0;
    while (next < items.length && !stopped()) {
      const first = contexts.get(items[next].id)!;
      const destination = first.subscription.destination!;
      const group = items.slice(next, next + Math.max(1, Math.min(width, (await brokers.of(destination.type)).maxBatch)));
      const prepared = await Promise.all(group.map(async (claimed) => ({ claimed, delivery: contexts.get(claimed.id)!, ...(await prepare(contexts.get(claimed.id)!)) })));
      const outcomes = await brokers.send(
        destination,
        prepared.map((p) => ({ deliveryId: p.delivery.id, eventId: p.delivery.event.id, eventType: p.delivery.event.type, orderKey: orderKeyOf(p.delivery.event), body: p.body, headers: p.headers })),
        { subscriptionId: first.subscription.id, workspaceId: first.event.workspaceId, allowPrivateTargets, timeoutMs: deps.timeoutMs ?? DELIVERY_TIMEOUT_MS },
      );
      outcomes.slice(0, group.length).forEach((o, i) => sent.push({ delivery: prepared[i].delivery, claimed: prepared[i].claimed, attemptedAt: prepared[i].attemptedAt, body: prepared[i].body, result: answerOfBroker(o) }));
      next += Math.min(outcomes.length, group.length);
      if (outcomes.length < group.length || outcomes.some((o) => o.verdict !== 'delivered')) break;
    }
    return { sent, unstarted: items.slice(next) };
  }

  /** What every recorded attempt says of its delivery and the receiver's answer. */
  function answerOf({ delivery, attemptedAt, result, body }: Sent) {
    return {
      deliveryId: delivery.id,
      subscriptionId: delivery.subscription.id,
      eventId: delivery.event.id,
      eventType: delivery.event.type,
      httpStatus: result.httpStatus ?? null,
      durationMs: result.durationMs,
      responseExcerpt: result.responseExcerpt ?? null,
      error: result.error ?? null,
      payload: body,
      attemptedAt,
    };
  }

  /** Records a failed (or 410) scheduled attempt with its next attempt; null when fenced. */
  async function recordFailure(s: Sent, fence: string, workflowId: string, workflowRunId: string | null) {
    const { delivery, claimed, attemptedAt, result } = s;
    const gone = goneBy(result);
    // The subscription's schedule as it is now: a change applies from a delivery's next failure on.
    const delays = retryDelaysMs(delivery.subscription.retrySchedule);
    const lastScheduled = claimed.attempt >= maxAttemptsOf(delays);
    const retryAfterMs = overloadedBy(result) ? parseRetryAfter(result.retryAfter, attemptedAt) : null;
    const jittered = jitteredDelay(claimed.attempt, Math.random(), delays);
    const delay = !gone && jittered !== undefined ? retryDelay(claimed.attempt, jittered, retryAfterMs, delays) : null;
    const saved = await deliveryRepository.recordAttempt({
      ...answerOf(s),
      attempt: claimed.attempt,
      trigger: delivery.event.type === 'webhook.test' ? 'test' : 'scheduled',
      outcome: gone ? 'gone' : 'failed',
      lastScheduled,
      nextAttemptAt: delay ? new Date(attemptedAt.getTime() + delay.delayMs) : null,
      workflowId,
      workflowRunId,
      waited: claimed.waited,
      fence,
    });
    return saved && { saved, nextAttemptAt: delay ? attemptedAt.getTime() + delay.delayMs : null, retryAfterUntil: retryAfterUntilOf(s, retryAfterMs), overloaded: overloadedBy(result), lastScheduled };
  }

  /**
   * Records a manual attempt (any answer): the delivery's count continues, its schedule is left as
   * it was, a 2xx marks it succeeded; a Retry-After holds the subscription as for a scheduled one.
   * null when fenced.
   */
  async function recordManual(s: Sent, fence: string) {
    const { delivery, claimed, attemptedAt, result } = s;
    const status = result.httpStatus;
    const outcome: 'succeeded' | 'failed' | 'gone' = delivered(result) ? 'succeeded' : goneBy(result) ? 'gone' : 'failed';
    const saved = await deliveryRepository.recordAttempt({
      ...answerOf(s),
      attempt: null,
      trigger: 'manual',
      outcome,
      lastScheduled: false,
      nextAttemptAt: null,
      // The log ties the attempt to the workflow that asked first (a re-send's, a recovery's).
      workflowId: claimed.manual![0],
      workflowRunId: null,
      waited: claimed.waited,
      fence,
      served: claimed.manual,
    });
    if (!saved) return null;
    const retryAfterMs = overloadedBy(result) ? parseRetryAfter(result.retryAfter, attemptedAt) : null;
    const answer: AttemptResult = { outcome: outcome === 'gone' ? 'cancelled' : outcome, attemptId: saved.attemptId, attempt: saved.attempt, httpStatus: status ?? null };
    return { saved, outcome, retryAfterUntil: retryAfterUntilOf(s, retryAfterMs), overloaded: overloadedBy(result), answer: { deliveryId: delivery.id, requesters: claimed.manual!, result: answer } };
  }

  /** No attempt of the subscription before then; never longer than a delivery's whole schedule. */
  function retryAfterUntilOf(s: Sent, retryAfterMs: number | null): number | null {
    const hold = retryAfterMs ? Math.min(retryAfterMs, remainingSpanMs(1, retryDelaysMs(s.delivery.subscription.retrySchedule))) : 0;
    return hold > 0 ? s.attemptedAt.getTime() + hold : null;
  }

  function observe(s: Sent, outcome: 'succeeded' | 'failed' | 'gone', extra: { paused?: boolean; disabled?: boolean; attempt: number; lastScheduled?: boolean }) {
    const manual = s.claimed.manual !== undefined;
    const lastScheduled = !manual && (extra.lastScheduled ?? extra.attempt >= maxAttemptsOf(retryDelaysMs(s.delivery.subscription.retrySchedule)));
    countAttempt({ outcome, trigger: manual ? 'manual' : 'scheduled', durationMs: s.result.durationMs, lastScheduled, paused: extra.paused === true, disabled: extra.disabled === true });
    annotateSpan({
      'webhook.delivery.id': s.delivery.id,
      'webhook.event.id': s.delivery.event.id,
      'webhook.subscription.id': s.delivery.subscription.id,
      'webhook.attempt': extra.attempt,
      'webhook.outcome': outcome,
      'http.response.status_code': s.result.httpStatus,
    });
  }

  const activities = {
    /** The run's claim (a local activity): the oldest due deliveries it may send now. */
    async claimDue(input: ClaimDueInput): Promise<ClaimResult> {
      return await queueRepository.claimDue({
        subscriptionId: input.subscriptionId,
        workspaceId: input.workspaceId,
        runId: input.runId,
        token: input.token,
        workspaceCap,
        maxInFlightLimit,
        open: input.open,
        first: input.first ?? true,
        now: await clock(),
        waitedFor: input.waitedFor,
        limitFor: (settings) => {
          const state = followSettings(input.state, settings);
          const free = Math.max(0, effectiveInFlight(settings, state.effectiveInFlight) - input.open);
          const rate = rateAllowance(state, settings.ratePerSecond, input.now).starts;
          const limit = Math.min(free * depthOf(state, settings), rate, MAX_BATCH);
          return { limit, limitedBy: free === 0 ? 'in_flight_bound' : rate === 0 ? 'rate' : null };
        },
      });
    },

    /** The run's effectiveInFlight (null: not lowered) and Retry-After, for the subscription's representation (a local activity, when they change). */
    async reportState({ subscriptionId, effectiveInFlight, retryAfterUntil }: { subscriptionId: string; effectiveInFlight: number | null; retryAfterUntil: number | null }): Promise<void> {
      await queueRepository.report(subscriptionId, effectiveInFlight, retryAfterUntil === null ? null : new Date(retryAfterUntil));
    },

    /**
     * Signs and sends a claimed batch, `width` at a time in event order, and records the answers (the
     * 2xx in one statement). It starts no new attempt after an answer that is not a 2xx: what was not
     * sent goes back unsent, for the run to claim again under its bound, rate and Retry-After.
     */
    async sendBatch({ subscriptionId, token, deliveries, width }: SendBatchInput): Promise<BatchResult> {
      const info = activityInfo();
      const workflowId = info.workflowExecution?.workflowId ?? '';
      const workflowRunId = info.workflowExecution?.runId ?? null;
      // Alive from its first statement on (a busy database must not make a live batch look dead): a
      // worker that dies mid-batch is noticed after BATCH_HEARTBEAT_TIMEOUT, not BATCH_TIMEOUT.
      heartbeat();
      const beat = setInterval(() => heartbeat(), BATCH_HEARTBEAT_MS);
      // A batch given up by Temporal (no heartbeat for BATCH_HEARTBEAT_TIMEOUT, e.g. while the server
      // was away) is sent again under a new claim: this one learns it at its next heartbeat and
      // starts nothing more, so the two overlap by at most the requests already open.
      const replaced = cancellationSignal();
      let taken: { fence: string; mine: Set<string> };
      let contexts: Map<string, AttemptContext>;
      let sent: Sent[];
      let unstarted: ClaimedDelivery[];
      try {
        taken = await queueRepository.takeOver(deliveries.map((d) => d.id), token, info.attempt);
        await interleave('batch:taken', subscriptionId);
        contexts = new Map((await deliveryRepository.findForAttempts([...taken.mine])).map((c) => [c.id, c]));
        // Paused, deleted or disabled since the claim: nothing is sent; the run's next claim settles them.
        const sendable = deliveries.filter((d) => contexts.get(d.id)?.subscription.condition === 'receiving' && !contexts.get(d.id)?.subscription.deletedAt);
        const unsent = [...taken.mine].filter((id) => !sendable.some((d) => d.id === id));
        if (unsent.length) await queueRepository.giveBack(unsent, taken.fence);
        const toBroker = sendable.length > 0 && contexts.get(sendable[0].id)!.subscription.destination !== null;
        ({ sent, unstarted } = toBroker
          ? await sendToBroker(sendable, width, contexts, () => replaced.aborted)
          : await sendInTurn(sendable, width, (d) => send(contexts.get(d.id)!, d), () => replaced.aborted));
      } finally {
        clearInterval(beat);
      }
      const { fence, mine } = taken;
      const result: BatchResult = { attempted: 0, succeeded: 0, overloaded: false, unanswered: false, retryAfterUntil: null, nextAttemptAt: null, stop: null, slowestMs: null };
      await interleave('batch:sent', subscriptionId);
      if (unstarted.length) await queueRepository.giveBack(unstarted.map((d) => d.id), fence);
      if (sent.length) result.slowestMs = Math.max(...sent.map((s) => s.result.durationMs));
      const scheduled = sent.filter((s) => s.claimed.manual === undefined);
      const ok = scheduled.filter(is2xx);
      const successes: SuccessItem[] = ok.map((s) => ({
        attemptId: newId('att'),
        deliveryId: s.delivery.id,
        eventId: s.delivery.event.id,
        eventType: s.delivery.event.type,
        attempt: s.claimed.attempt,
        trigger: s.delivery.event.type === 'webhook.test' ? 'test' : 'scheduled',
        httpStatus: s.result.httpStatus ?? null,
        durationMs: s.result.durationMs,
        responseExcerpt: s.result.responseExcerpt ?? null,
        payload: s.body,
        attemptedAt: s.attemptedAt,
        workflowId,
        workflowRunId,
        waited: s.claimed.waited,
      }));
      const recorded = new Set(await deliveryRepository.recordSuccesses(subscriptionId, fence, successes));
      for (const s of ok) if (recorded.has(s.delivery.id)) observe(s, 'succeeded', { attempt: s.claimed.attempt });
      result.succeeded = recorded.size;
      result.attempted = recorded.size;

      const notices: ConditionNotice[] = [];
      for (const s of scheduled.filter((x) => !ok.includes(x))) {
        const failure = await recordFailure(s, fence, workflowId, workflowRunId);
        if (!failure) continue;
        result.attempted += 1;
        observe(s, goneBy(s.result) ? 'gone' : 'failed', { attempt: s.claimed.attempt, lastScheduled: failure.lastScheduled, paused: failure.saved.paused !== null, disabled: failure.saved.disabled !== null });
        if (failure.overloaded) result.overloaded = true;
        if (unansweredBy(s.result)) result.unanswered = true;
        if (failure.retryAfterUntil !== null) result.retryAfterUntil = Math.max(result.retryAfterUntil ?? 0, failure.retryAfterUntil);
        if (failure.nextAttemptAt !== null) result.nextAttemptAt = Math.min(result.nextAttemptAt ?? Infinity, failure.nextAttemptAt);
        if (goneBy(s.result)) result.stop = 'cancelled';
        if (failure.saved.disabled) notices.push(failure.saved.disabled);
        if (failure.saved.paused) {
          result.stop ??= 'paused';
          logger.warn({ subscriptionId }, 'webhook subscription paused after consecutive failures');
          notices.push(failure.saved.paused);
        }
      }
      // Manual attempts one by one (they are few): each answers the workflows that asked for it.
      for (const s of sent.filter((x) => x.claimed.manual !== undefined)) {
        const manual = await recordManual(s, fence);
        if (!manual) continue;
        result.attempted += 1;
        if (manual.outcome === 'succeeded') result.succeeded += 1;
        observe(s, manual.outcome, { attempt: manual.saved.attempt, paused: manual.saved.paused !== null, disabled: manual.saved.disabled !== null });
        (result.answered ??= []).push(manual.answer);
        if (manual.overloaded) result.overloaded = true;
        if (manual.outcome === 'failed' && unansweredBy(s.result)) result.unanswered = true;
        if (manual.retryAfterUntil !== null) result.retryAfterUntil = Math.max(result.retryAfterUntil ?? 0, manual.retryAfterUntil);
        if (manual.outcome === 'gone') result.stop = 'cancelled';
        if (manual.saved.disabled) notices.push(manual.saved.disabled);
        if (manual.saved.paused) {
          result.stop ??= 'paused';
          logger.warn({ subscriptionId }, 'webhook subscription paused after consecutive failures');
          notices.push(manual.saved.paused);
        }
      }
      await interleave('batch:recorded', subscriptionId);
      // What follows the record must not fail the batch: a retry would find its rows recorded and
      // return nothing, and the run would lose the answers' Retry-After, AIMD and next due time.
      if (mailer) for (const notice of notices) await afterRecord('e-mail a webhook notice', subscriptionId, () => emailConditionNotice(mailer, notice));
      // Room opened in the workspace's cap: wake as many of its waiting runs (a lost wake-up is made good after CAP_RECHECK_MS).
      const client = deps.client;
      if (client) await afterRecord('wake the runs waiting for room in the cap', subscriptionId, async () => wakeRuns(client, taskQueue, await queueRepository.takeCapWaiters(subscriptionId, mine.size)));
      return result;
    },

    /**
     * Asks the subscription's delivery run for a manual attempt of each delivery, for the workflow
     * that calls it (a re-send, a recovery): written on the deliveries, then the run is woken (it
     * sends them within its bound and the workspace's cap, and answers the workflow). `at`: when,
     * for a look at the deliveries should no answer come (manualRequestsState).
     */
    async requestManualAttempts({ subscriptionId, workspaceId, deliveryIds, requester }: ManualRequestInput): Promise<{ asked: string[]; full: string[]; at: number }> {
      const at = await clock();
      const { asked, full } = await manualRepository.request(subscriptionId, deliveryIds, requester, at);
      // On the asking workflow's own task queue: the run is served by the same workers.
      if (asked.length) await wakeRun(deps.client ?? getClient(), activityInfo().taskQueue, { subscriptionId, workspaceId });
      return { asked, full, at: at.getTime() };
    },

    /** For a workflow that got no answer: what came of its requests (null: still waiting). */
    async manualRequestsState({ requester, deliveryIds, since }: { requester: string; deliveryIds: string[]; since: number }) {
      return await manualRepository.state(requester, deliveryIds, new Date(since));
    },
  };
  // On the embedded database a run's claims and batches take its workspace's turns (src/db/fair-turns.ts),
  // with the workspace's requests: a busy workspace's deliveries do not queue another's.
  return {
    ...activities,
    claimDue: (input: ClaimDueInput): Promise<ClaimResult> => withDatabaseLane(workspaceLane(input.workspaceId), () => activities.claimDue(input)),
    sendBatch: (input: SendBatchInput): Promise<BatchResult> => withDatabaseLane(workspaceLane(input.workspaceId), () => activities.sendBatch(input)),
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;

/** A step after a batch's record: its failure is logged, never thrown. */
async function afterRecord(what: string, subscriptionId: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    logger.warn({ err, subscriptionId }, `after a batch: could not ${what}`);
  }
}

const is2xx = (s: Sent) => delivered(s.result);

/**
 * Sends `items` in order, `width` at a time (the next as one ends), until an answer is not a 2xx
 * or `stopped()`: from then on none is started. Returns what was sent, in order, and what was never started.
 */
export async function sendInTurn(items: ClaimedDelivery[], width: number, sendOne: (d: ClaimedDelivery) => Promise<Sent>, stopped: () => boolean = () => false): Promise<{ sent: Sent[]; unstarted: ClaimedDelivery[] }> {
  const sent = new Array<Sent | undefined>(items.length);
  let next = 0;
  let halted = false;
  const lane = async () => {
    while (!halted && !stopped() && next < items.length) {
      const i = next++;
      const s = await sendOne(items[i]);
      sent[i] = s;
      if (!is2xx(s)) halted = true;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, items.length)) }, lane));
  return { sent: sent.filter((s): s is Sent => s !== undefined), unstarted: items.slice(next) };
}
