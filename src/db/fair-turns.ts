// Fair turns at the embedded database's one connection. PGlite runs one statement or transaction
// at a time, in the order they were asked for, so a caller with twenty requests in flight had
// twenty places in line for each one of another workspace's, and the delivery engine's steps waited
// behind all of them. Here every caller has a lane of its own (an API key, a session, an address, a
// workspace's bulk job; everything else, the relay and the worker's activities among it, is the
// service's lane), and the connection is given to the lanes in turn: one statement or transaction
// each, round-robin over the lanes that wait (per lane, in arrival order). A busy caller then gets
// its share and no more, whatever its number of requests. Every grant comes after a turn of the
// event loop, so I/O that waits (a new request) is read, and its lane queued, before the next one.
import { AsyncLocalStorage } from 'node:async_hooks';

/** Whose work runs in this async context (set around a request and a bulk job's chunk). */
const lanes = new AsyncLocalStorage<string>();

/** The lane of everything that runs outside a request: the relay, the worker's activities, start-up. */
export const SERVICE_LANE = 'service';

/** Runs `fn` with its statements in `lane` (the key is kept in memory only while it waits). */
export const withDatabaseLane = <T>(lane: string, fn: () => T): T => lanes.run(lane, fn);

export const currentDatabaseLane = (): string => lanes.getStore() ?? SERVICE_LANE;

export class FairTurns {
  /** Waiting grants per lane; the Map's order is the round's order. */
  private readonly waiting = new Map<string, (() => void)[]>();
  private busy = false;
  private scheduled = false;

  /** Runs `op` when its lane's turn comes, holding the connection until it settles. */
  async run<T>(lane: string, op: () => Promise<T>): Promise<T> {
    await new Promise<void>((grant) => {
      const queue = this.waiting.get(lane);
      if (queue) queue.push(grant);
      else this.waiting.set(lane, [grant]);
      this.schedule();
    });
    try {
      return await op();
    } finally {
      this.busy = false;
      this.schedule();
    }
  }

  /** Lanes with work waiting (read by the tests). */
  get waitingLanes(): number {
    return this.waiting.size;
  }

  private schedule() {
    if (this.busy || this.scheduled || this.waiting.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.busy) return;
      const next = this.waiting.entries().next();
      if (next.done) return;
      const [lane, queue] = next.value;
      const grant = queue.shift()!;
      // The lane goes to the end of the round, or out of it when it has nothing more waiting.
      this.waiting.delete(lane);
      if (queue.length) this.waiting.set(lane, queue);
      this.busy = true;
      grant();
    });
  }
}
