// Every duration and tuning figure of the webhook engine (the relay, the delivery run, the
// sender), each with its reason and the test that pins it. None is a timing rule that correctness
// rests on: each bounds a cost, or says how soon a lost wake-up or a dead worker is made good.
// What the contract promises lives with its rule instead: the retry schedule and its jitter
// (schedule.ts), 20 failures in a row pause (delivery.repository.ts PAUSE_AFTER_FAILURES), a
// Retry-After counts for a week at most (retry-after.ts), a rotated secret signs for 24 h
// (signing.ts), a notice at most hourly (condition-notice.ts). Operators' settings (bounds, caps,
// limits) are in src/config.ts. No Node built-ins: workflow code imports this.

// The outbox relay (src/webhooks/fanout/outbox-relay.ts).

/** Events one relay claim takes at most: one statement's worth of rows to write and runs to wake. (relay.test.ts) */
export const RELAY_BATCH_SIZE = 200;

/**
 * How long a relay holds the events it claimed before another may take them: a relay that died
 * after its claim delays them this long (and a strict subscription's later events with them:
 * CLAIM_RETRY_MS). Far above a batch's write and wake on a busy machine. (relay.test.ts: "lease")
 */
export const RELAY_LEASE_MS = 15_000;

/** Loops relaying at once in a process: one claims and writes while the other's runs are woken. (relay.test.ts: "each lane") */
export const RELAY_LANES = 2;

/** Runs one lane signals at once: a slow signal-with-start holds no other subscription's. */
export const RELAY_SIGNAL_CONCURRENCY = 48;

/**
 * Events of one lane whose runs are being woken while it claims the next batches, at most. A
 * subscription's wakes follow one another (run-waker.ts), so one slow signal-with-start holds every
 * batch with an event for that subscription; under a trickle of commits a batch is one to three
 * events, so a cap of batches (4, then 16) stopped the lanes claiming behind it. A waiting event
 * costs its ids in memory and no connection: ten full batches. (relay.test.ts: "waking cap")
 */
export const WAKING_EVENTS_PER_LANE = 2_000;

/**
 * The relay wakes on a commit's notification (LISTEN); it also looks at the outbox this often, for
 * a notification lost with a connection (cost when nothing changes: one indexed query per lane
 * per interval), or every RELAY_POLL_UNLISTENED_MS where it cannot listen.
 */
export const RELAY_POLL_MS = 1_000;
export const RELAY_POLL_UNLISTENED_MS = 100;

/** A lane that cannot relay (database or Temporal away) tries again after its poll, doubling up to this. */
export const RELAY_BACKOFF_MAX_MS = 10_000;

/** How often the first lane sweeps for overdue deliveries (OVERDUE_AFTER_MS): one indexed query. (relay.test.ts: "overdue") */
export const RELAY_SWEEP_MS = 30_000;

// The delivery run (workflows.ts) and its activities.

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
 * The relay's sweep starts the run of a subscription whose pending delivery is overdue by more
 * than this (its run was terminated by an operator, or its signal was lost with Temporal's
 * history): a live run would have sent it. Cost when nothing changes: one indexed query per sweep.
 */
export const OVERDUE_AFTER_MS = 2 * 60_000;

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

// The sender (webhook-sender.ts, delivery-agent.ts, host-resolver.ts).

/** One attempt's whole time (connect, TLS, request, answer): the contract's 10 s; a slower answer is a time-out failure. (webhook-sender.test.ts) */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * A kept-alive receiver connection closes after this long idle: under Node's and most servers'
 * own keep-alive time-out (5 s), so a reused connection is seldom one the receiver is closing.
 * (delivery-agent.test.ts)
 */
export const AGENT_IDLE_MS = 4_000;

/** One try of each DNS query of a webhook host; c-ares caps a server's time-out at 5 s anyway. Saving a URL and a delivery's connection wait at most this long. (host-resolver.test.ts) */
export const DNS_TIMEOUT_MS = 5_000;
