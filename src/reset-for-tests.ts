// Test support only: between two test files that share a worker process (the `shared` project of
// vitest.config.ts, `isolate: false`), test/support/setup.ts gives the next file a fresh database.
// Whatever a module keeps for the life of the process and took from the database (or from what
// the previous file did: caches, counters, listeners, clients) must go with it, so that each file
// starts as it would in a process of its own. Such a module registers how to forget it here, with
// one call beside the state it keeps; nothing in the service calls resetForTests().
type Reset = () => unknown;

const resets: Reset[] = [];
const closes: Reset[] = [];

/** Registers a reset of this module's process-wide state (run before the database is closed). */
export function onResetForTests(reset: Reset): void {
  resets.push(reset);
}

/** Registers what closes the database itself (src/db/db.ts): run after every other reset. */
export function onCloseForTests(close: Reset): void {
  closes.push(close);
}

/** Forgets every registered module's state and closes the database; the next use opens it again. */
export async function resetForTests(): Promise<void> {
  for (const reset of resets) await reset();
  for (const close of closes) await close();
}
