// Every constant of the delivery engine, each with its reason and the test that pins it. None is a
// timing rule that correctness rests on: each bounds a cost or says how soon a lost wake-up is
// made good. No Node built-ins: workflow code imports this.

/**
 * Deliveries one `sendBatch` activity takes at most. A batch is also bounded by the subscription's
 * free in-flight slots and the workspace's cap; this keeps one activity's input and its one
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
 * A wake-up (signal-with-start) that reaches a run while the server writes its completion is
 * refused ("workflow is closing", as out of a resource) and goes through once the run has ended,
 * starting the next run: the client tries again after this (then 1.7 times longer each time),
 * not after the SDK's 1.4–2 s for a server out of resources, which held a subscription's next
 * event that long (event-to-attempt p50 of about 500 ms at a steady 30 events/s). Cost: a few
 * more calls while a run ends. (test/temporal/client-retry.test.ts)
 */
export const CLOSING_RETRY_MS = 20;

/**
 * The relay's sweep starts the run of a subscription whose pending delivery is overdue by more
 * than this (its run was terminated by an operator, or its signal was lost with Temporal's
 * history): a live run would have sent it. Cost when nothing changes: one indexed query per sweep.
 */
export const OVERDUE_AFTER_MS = 2 * 60_000;

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
