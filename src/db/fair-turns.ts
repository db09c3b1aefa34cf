// Fair turns at the embedded database's one connection. PGlite runs one statement or transaction
// at a time, in the order they were asked for, so a caller with twenty requests in flight had
// twenty places in line for each one of another workspace's, and the delivery engine's steps waited
// behind all of them. Here the work has lanes: a workspace's (its authenticated requests and its
// subscriptions' delivery steps), a request's client address until its workspace is known,
// the bulk jobs' chunks, and the service's (the relay, start-up, everything else). The connection
// is given to the lanes in turn: one statement or transaction each, round-robin over the lanes
// that wait (per lane, in arrival order). A busy workspace then gets its share and no more,
// whatever its number of requests or deliveries. Every grant comes after a turn of the event loop,
// so I/O that waits (a new request) is read, and its lane queued, before the next one.
import { AsyncLocalStorage } from 'node:async_hooks';

/** Whose work runs in this async context (set around a request, a delivery step and a bulk job's chunk). */
const lanes = new AsyncLocalStorage<{ lane: string }>();

/** The lane of everything that runs outside a request: the relay, the worker's activities, start-up. */
export const SERVICE_LANE = 'service';

/** The lane of every bulk job's chunks (src/jobs/ticket-bulk.activities.ts). */
export const BULK_JOBS_LANE = 'bulk-jobs';

/** A workspace's lane: its requests once authenticated, and its subscriptions' delivery steps. */
export const workspaceLane = (workspaceId: number): string => `workspace:${workspaceId}`;

/** A request's lane until it is authenticated: its client address's (one per address, whatever credentials it sends). */
export const addressLane = (address: string): string => `address:${address}`;

/** Runs `fn` with its statements in `lane`. */
export const withDatabaseLane = <T>(lane: string, fn: () => T): T => lanes.run({ lane }, fn);

/** Moves the rest of the current `withDatabaseLane` context to `lane` (a request, once its workspace is known); outside one, nothing. */
export function moveToDatabaseLane(lane: string): void {
  const current = lanes.getStore();
  if (current) current.lane = lane;
}

export const currentDatabaseLane = (): string => lanes.getStore()?.lane ?? SERVICE_LANE;

export class FairTurns {
  /** Waiting grants per lane; the Map's order is the round's order. */
  private readonly waiting = new Map<string, (() => void)[]>();
  private inUse = 0;
  private scheduled = false;

  /**
   * `capacity`: turns held at once (PGlite's one connection: 1; a PostgreSQL pool: its size).
   * With more than one, a turn asked for while one is free and no lane waits is granted at once;
   * otherwise every grant comes after a turn of the event loop, as described above.
   */
  constructor(private readonly capacity = 1) {}

  /** Runs `op` when its lane's turn comes, holding the turn until it settles. */
  async run<T>(lane: string, op: () => Promise<T>): Promise<T> {
    const giveBack = await this.take(lane);
    try {
      return await op();
    } finally {
      giveBack();
    }
  }

  /** Waits for a turn of `lane`; resolves with the function that gives it back (once). */
  take(lane: string): Promise<() => void> {
    let given = false;
    const giveBack = () => {
      if (given) return;
      given = true;
      this.inUse -= 1;
      this.schedule();
    };
    if (this.capacity > 1 && this.inUse < this.capacity && this.waiting.size === 0) {
      this.inUse += 1;
      return Promise.resolve(giveBack);
    }
    return new Promise((resolve) => {
      const grant = () => resolve(giveBack);
      const queue = this.waiting.get(lane);
      if (queue) queue.push(grant);
      else this.waiting.set(lane, [grant]);
      this.schedule();
    });
  }

  /** Lanes with work waiting (read by the tests). */
  get waitingLanes(): number {
    return this.waiting.size;
  }

  private schedule() {
    if (this.inUse >= this.capacity || this.scheduled || this.waiting.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // Every free turn is given in this one pass, round-robin over the waiting lanes: with a pool
      // of ten, a burst that filled it is not drained one grant per turn of the event loop (a
      // loop that A's work keeps busy made B's statement wait one loop turn per lane ahead of it).
      while (this.inUse < this.capacity) {
        const next = this.waiting.entries().next();
        if (next.done) return;
        const [lane, queue] = next.value;
        const grant = queue.shift()!;
        // The lane goes to the end of the round, or out of it when it has nothing more waiting.
        this.waiting.delete(lane);
        if (queue.length) this.waiting.set(lane, queue);
        this.inUse += 1;
        grant();
      }
    });
  }
}
