// PGlite runs Postgres in WebAssembly on the service's own thread, and its statements settle
// without ever returning to the event loop (measured: 300 transactions in 1.5 s, and not one timer
// or setImmediate callback ran meanwhile). So a chain of statements (a bulk job's chunk, a relay
// pass) would hold every HTTP request, Temporal poll and timer until its end. Through this wrapper
// each statement or transaction waits for its turn at the connection (fair-turns.ts: after a turn
// of the event loop, round-robin over the callers' lanes), so I/O that waits (another caller's
// request) is read in between, and no caller's many requests crowd out another's few.
//
// The turn comes before PGlite's connection is taken (a statement on its own, or a transaction's
// start), never between the statements of a transaction: a transaction holds the connection until
// it ends, so a turn inside it would only let other callers run their JavaScript while everyone's
// statements wait for it (measured: a burst of 20 concurrent requests' tail got 2.8 times longer).
import type { PGlite } from '@electric-sql/pglite';
import { currentDatabaseLane, FairTurns } from './fair-turns.ts';

function withTurns(target: PGlite, turns: FairTurns): PGlite {
  return new Proxy(target, {
    get(obj, prop) {
      // PGlite keeps its state in private fields: every method runs on the object itself.
      const value = Reflect.get(obj, prop, obj) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'query' || prop === 'exec' || prop === 'transaction') {
        return (...args: unknown[]) => turns.run(currentDatabaseLane(), async () => (value as (...a: unknown[]) => unknown).apply(obj, args));
      }
      return (value as (...a: unknown[]) => unknown).bind(obj);
    },
  });
}

/** The PGlite that Prisma's adapter is given: the same database, each statement or transaction in its caller's turn. */
export const pgliteWithTurns = (lite: PGlite, turns = new FairTurns()): PGlite => withTurns(lite, turns);
