// Test support only: between two test files that share a worker process (the `shared` project of
// vitest.config.ts, `isolate: false`), test/support/setup.ts gives the next file a just-migrated
// database of its own: the open database emptied of every row (sequences restarted), or, when
// that cannot be done, a new one. Whatever a module keeps for the life of the process and took
// from the database (or from what the previous file did: caches, counters, listeners, clients)
// must go with the rows, so that each file starts as it would in a process of its own. Such a
// module registers how to forget it here, with one call beside the state it keeps; nothing in the
// service calls resetForTests().
type Reset = () => unknown;

const resets: Reset[] = [];
const closes: Reset[] = [];

/** Registers a reset of this module's process-wide state (run before the database is emptied or closed). */
export function onResetForTests(reset: Reset): void {
  resets.push(reset);
}

/** Registers what closes the database itself (src/db/db.ts): run after every other reset, when asked. */
export function onCloseForTests(close: Reset): void {
  closes.push(close);
}

/**
 * Forgets every registered module's state. With `closeDatabase` (the default) it also closes the
 * database, whose next use opens it again (what the configuration names); without, the database
 * stays open, and the caller empties it (test/support/database-reset.ts).
 */
export async function resetForTests({ closeDatabase = true }: { closeDatabase?: boolean } = {}): Promise<void> {
  for (const reset of resets) await reset();
  if (closeDatabase) for (const close of closes) await close();
}
