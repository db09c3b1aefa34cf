// Every duration and tuning figure of the outbox relay (outbox-relay.ts), each with its reason and
// the test that pins it; none is a timing rule that correctness rests on (the delivery run's are
// in ../delivery/constants.ts, the sender's in ../message/constants.ts).

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

/**
 * The relay's sweep wakes the run of a subscription whose pending delivery is overdue by more
 * than this (its run was terminated by an operator, or its signal was lost with Temporal's
 * history): a live run would have sent it. Cost when nothing changes: one indexed query per sweep.
 */
export const OVERDUE_AFTER_MS = 2 * 60_000;
