// Where an attempt runs, decided per subscription from how fast its receiver has been answering
// this worker. An attempt is first tried as a LOCAL activity, inside its workflow's task: for a
// receiver that answers fast this is the cheapest path (no activity task, one workflow task per
// event, as cheap as a workflow per delivery was). A receiver that is slow, or not yet seen by this
// worker, gets its attempt as a regular activity instead, holding an activity slot rather than a
// workflow-task slot while it takes its time: the local activity only takes the slot and hands
// the sending over.
//
// A fast receiver's attempt that finds its subscription's in-flight bound full may wait in the
// worker, briefly (BRIEF_WAIT_MS), for a slot freed by an attempt of this same worker: with
// answers in milliseconds a slot comes free almost at once, and waiting durably (a timer, a
// signal and a second workflow task) would cost the Temporal server more than the delivery.
// After that, or for a slow receiver at once, it waits durably, holding nothing.
//
// Process-local and advisory: another worker process learns a receiver's speed on its own, and a
// slot handed over by another process reaches the waiting delivery by signal.

/** A receiver whose recent answers took less than this on average is fast. */
export const FAST_RECEIVER_MS = 500;
/** The longest a fast receiver's attempt waits in the worker for a slot. */
export const BRIEF_WAIT_MS = 250;
/** Attempts of one subscription waiting briefly in one worker, per unit of its in-flight bound. */
export const BRIEF_WAITERS_PER_BOUND = 4;
/** Weight of the newest answer in the moving average. */
const ALPHA = 0.2;
/** Subscriptions remembered (the least recently seen forgotten first). */
const REMEMBERED = 10_000;

const latencyMs = new Map<string, number>();
const waiters = new Map<string, () => void>();
/** Brief waiters per subscription. */
const briefWaiting = new Map<string, number>();

/** Records how long a subscription's receiver took to answer (or to fail). */
export function recordAnswer(subscriptionId: string, durationMs: number): void {
  const before = latencyMs.get(subscriptionId);
  latencyMs.delete(subscriptionId);
  latencyMs.set(subscriptionId, before === undefined ? durationMs : before + ALPHA * (durationMs - before));
  if (latencyMs.size > REMEMBERED) latencyMs.delete(latencyMs.keys().next().value!);
}

/** Has this subscription's receiver been answering fast here? Unknown counts as fast. */
export function isFast(subscriptionId: string): boolean {
  return (latencyMs.get(subscriptionId) ?? 0) < FAST_RECEIVER_MS;
}

/**
 * Waits up to `ms` for `handOver(deliveryId)` from an attempt of this process. True when the slot
 * came; false when the wait ended first, or without waiting when `limit` of the subscription's
 * attempts already wait here (the slot, should it come later, goes by signal).
 */
export async function awaitHandOver(subscriptionId: string, deliveryId: string, ms: number, limit: number): Promise<boolean> {
  const count = briefWaiting.get(subscriptionId) ?? 0;
  if (count >= limit) return false;
  briefWaiting.set(subscriptionId, count + 1);
  try {
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        waiters.delete(deliveryId);
        resolve(false);
      }, ms);
      waiters.set(deliveryId, () => {
        clearTimeout(timer);
        waiters.delete(deliveryId);
        resolve(true);
      });
    });
  } finally {
    const left = (briefWaiting.get(subscriptionId) ?? 1) - 1;
    if (left > 0) briefWaiting.set(subscriptionId, left);
    else briefWaiting.delete(subscriptionId);
  }
}

/** Is this delivery waiting in this process for a slot? */
export function waitsHere(deliveryId: string): boolean {
  return waiters.has(deliveryId);
}

/** Gives a freed slot to a delivery waiting in this process; false when none is (signal it instead). */
export function handOver(deliveryId: string): boolean {
  const wake = waiters.get(deliveryId);
  if (!wake) return false;
  wake();
  return true;
}
