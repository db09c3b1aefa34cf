// Every duration and tuning figure of the delivery run (workflows.ts) and its activities, each
// with its reason and the test that pins it; the relay's are in ../fanout/constants.ts, the
// sender's in ../message/constants.ts. None is a timing rule that correctness rests on: each
// bounds a cost, or says how soon a lost wake-up or a dead worker is made good. What the contract
// promises lives with its rule instead: the retry schedule and its jitter (../message/schedule.ts),
// 20 failures in a row pause (delivery.repository.ts PAUSE_AFTER_FAILURES), a Retry-After counts
// for a week at most (../message/retry-after.ts), a rotated secret signs for 24 h
// (../message/signing.ts), a notice at most hourly (condition-notice.ts). Operators' settings
// (bounds, caps, limits) are in src/config.ts. No Node built-ins: workflow code imports this.

/**
 * Deliveries one `sendBatch` activity takes at most. A batch is also bounded by the room under its
 * subscription's bound in force (effectiveInFlight) and the workspace's cap; this keeps one activity's input and its one
 * success statement small. (delivery-run.test.ts: "bound under a burst")
 */
export const MAX_BATCH = 50;

/**
 * A receiver that answers fast gets batches of up to this many rounds of its bound: the batch still
 * opens no more than the bound's connections at once (it sends the next delivery as one ends), but
 * one claim, one activity and one record serve several rounds, where each round cost them all (a
 * batch's overhead, about 200 ms on the dev server, is what limited a fast receiver's deliveries/s).
 * A batch stops starting new attempts at its first answer that is not a 2xx (the rest go back
 * unsent), so a failing or overloaded receiver is met one round at a time, as before.
 * (delivery-schedule.test.ts: "pipeline depth"; delivery-run.test.ts: "bound under a burst")
 */
export const PIPELINE_DEPTH = 5;

/** A batch whose answers were all 2xx and none slower than this makes the next batch deep (PIPELINE_DEPTH). */
export const FAST_ANSWER_MS = 250;

/**
 * A run waiting for room in its workspace's cap is woken by the attempt that frees it (the waker
 * in activities.ts); should that wake-up be lost (its worker died between the two), it looks again
 * after this. Cost when nothing changes: one timer and one claim per waiting subscription per
 * interval. (delivery-run.test.ts: "the workspace cap")
 */
export const CAP_RECHECK_MS = 30_000;

/**
 * A claim found due deliveries yet took none, with nothing in its way that a wake-up ends: a
 * strictly ordered subscription's head waits for an earlier event of its workspace whose
 * deliveries a relay has not written yet (it leased it, or died holding the lease), or a row was
 * locked by another transaction. The run looks again after this. Cost when nothing changes: one
 * claim per such subscription per interval, for as long as the relay holds the earlier event
 * (its lease, 15 s, at most). (delivery-run.test.ts: "strictly ordered through the relay")
 */
export const CLAIM_RETRY_MS = 1_000;

/**
 * A run continues as new (carrying its state, once its batches have ended) after this many
 * batches, or sooner when Temporal suggests it: its history stays short, so a worker that takes
 * it over (or evicts it from its cache) replays a few thousand events at most. Each batch adds
 * about ten events (claim, activity, its wake-ups). Rare enough not to matter to a busy
 * subscription: the run pauses its claims for the time its batches take to end, once per 200.
 * (delivery-run.test.ts: "continues as new")
 */
export const BATCHES_PER_RUN = 200;

/**
 * How long one batch may take: a receiver's 10 s timeout, a batch's database work, and room for a
 * busy machine. A worker that dies mid-batch is noticed after this, and the batch is retried under
 * a new claim (the old one fenced).
 */
export const BATCH_TIMEOUT = '2 minutes';

/**
 * A batch heartbeats this often while it waits on receivers, and is given up (retried under a new
 * claim, the old one fenced) when none came for BATCH_HEARTBEAT_TIMEOUT: a killed worker's batch
 * goes out again within seconds, not minutes. (e2e/webhooks.test.ts: "killed with SIGKILL")
 */
export const BATCH_HEARTBEAT_MS = 3_000;
export const BATCH_HEARTBEAT_TIMEOUT = '15 seconds';

/**
 * A run whose queue is empty waits this long for the next event before it ends. Under a steady
 * trickle the next event then joins the live run (a signal) instead of ending one run and
 * starting another per event, and seldom meets a run in the moment it closes (CLOSING_RETRY_MS).
 * Cost when nothing changes: one timer per subscription that went idle, and its run's cache slot
 * on the worker for that long. (delivery-run.test.ts: "arrives while its run is ending")
 */
export const IDLE_LINGER_MS = 1_000;

/**
 * Thrown errors of the run's activities (an unreachable database, a worker that died mid-batch)
 * are retried after 1 s, doubling up to a minute, without limit: an outage may be long, and HTTP
 * failures are results, never thrown (the retry schedule is theirs). (delivery-workflow.test.ts: "fence")
 */
export const ACTIVITY_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' } as const;

/** A claim (a local activity: one transaction) gives up after this and is retried: a lock held that long is a fault. */
export const CLAIM_TIMEOUT = '30 seconds';

/** A delivery that went out later than it fell due by less than this shows no wait in the log: not worth a line. */
export const WAITED_AT_LEAST_MS = 1_000;

/**
 * Workflows (re-sends, a recovery) that may wait for a manual attempt of one delivery at once: they
 * all get the one attempt the run sends next. A re-send beyond them is refused (429): the
 * delivery's row and the run's claim stay small. (manual-attempts.test.ts)
 */
export const MANUAL_REQUESTS_PER_DELIVERY = 10;

/**
 * A workflow waiting for manual attempts looks at its deliveries after this without an answer: the
 * run answers every request it settles (durably, in its history), so this only ends the wait of
 * one whose delivery was deleted meanwhile. Cost when nothing changes: one query per waiting
 * re-send or recovery per interval. (manual-attempts.test.ts)
 */
export const MANUAL_RECHECK_MS = 60_000;
