// The caches of security decisions (resolved API keys and sessions) and what empties them. A
// revocation, a sign-out, a change of a role (its boards, its permissions) or of a person (role,
// deactivation) is announced through the database all instances share: the repository
// sends pg_notify in the transaction that commits it, and every instance listening
// (db.listen, the process's one LISTEN connection) drops the entry at once. The 10 s lifetime of an entry only covers a
// message lost while an instance's listener was reconnecting; on reconnecting the caches are emptied.
// With the embedded PGlite there is a single process, which drops its own entries when it revokes.
import { db } from '../db/db.ts';
import { logger } from '../logger.ts';
import { onResetForTests } from '../reset-for-tests.ts';

export const INVALIDATION_CHANNEL = 'auth_invalidation';

/**
 * What changed: a key (revoked), a session (ended), a role (every principal acting with it), a
 * user (a person's sessions, and the keys they created or whose account they are), a board (its
 * rules: fields, states, archived).
 */
export type Invalidation =
  | { kind: 'apiKey'; id: number }
  | { kind: 'session'; id: string }
  | { kind: 'role'; id: number }
  | { kind: 'user'; id: number }
  | { kind: 'board'; id: string };

export const invalidationPayload = (i: Invalidation) => `${i.kind}:${i.id}`;

function parsePayload(payload: string): Invalidation | undefined {
  const [kind, id] = payload.split(':', 2);
  if ((kind === 'apiKey' || kind === 'role' || kind === 'user') && /^\d{1,10}$/.test(id ?? '')) return { kind, id: Number(id) };
  if ((kind === 'session' || kind === 'board') && id) return { kind, id };
  return undefined;
}

/** Sends the invalidation to every instance when `tx` commits (and to none if it rolls back). */
export async function announceInvalidation(tx: { $executeRaw(query: TemplateStringsArray, ...values: unknown[]): Promise<number> }, i: Invalidation): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${INVALIDATION_CHANNEL}, ${invalidationPayload(i)})`;
}

/**
 * A bounded map whose fills cannot resurrect a revoked row: a lookup takes `generation` before
 * reading the database and passes it to `set`, which stores nothing if any invalidation happened
 * in between (the row it read may be the one just revoked).
 */
export class SecurityCache<Entry> {
  private readonly entries = new Map<string, Entry>();
  private epoch = 0;

  constructor(
    private readonly max: number,
    /** Whether an entry belongs to what an invalidation names. */
    private readonly matches: (entry: Entry, key: string, invalidation: Invalidation) => boolean,
  ) {
    caches.add(this as SecurityCache<unknown>);
  }

  get generation(): number {
    return this.epoch;
  }

  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  /** Stores the entry unless an invalidation happened since `generation` was read; returns whether it did. */
  set(key: string, entry: Entry, generation: number): boolean {
    if (generation !== this.epoch) return false;
    if (!this.entries.has(key) && this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, entry);
    return true;
  }

  invalidate(invalidation: Invalidation): void {
    this.epoch++;
    for (const [key, entry] of this.entries) if (this.matches(entry, key, invalidation)) this.entries.delete(key);
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
  }
}

const caches = new Set<SecurityCache<unknown>>();
/** Other caches that follow the same announcements (board rules): told of each, and of a lost connection (undefined). */
const followers = new Set<(invalidation: Invalidation | undefined) => void>();

/** `follow` hears every invalidation of this instance, and `undefined` when all must go. */
export function followInvalidations(follow: (invalidation: Invalidation | undefined) => void): void {
  followers.add(follow);
}

/** Applies an invalidation to this instance's caches (the revoking instance does not wait for its own message). */
export function invalidateLocally(invalidation: Invalidation): void {
  for (const cache of caches) cache.invalidate(invalidation);
  for (const follow of followers) follow(invalidation);
}

let listening = false;
let unlisten: Promise<(() => Promise<void>) | undefined> | undefined;
// A test file's fresh database (src/reset-for-tests.ts): cached principals go, and the LISTEN
// stops (the database may stay open for the next file, which listens afresh).
onResetForTests(async () => {
  listening = false;
  for (const cache of caches) cache.clear();
  const stop = await unlisten;
  unlisten = undefined;
  await stop?.().catch(() => undefined);
});

/** Starts hearing other instances' invalidations (PostgreSQL only); called on the first authentication. */
export function listenForInvalidations(): void {
  if (listening || db.kind !== 'postgres') return;
  listening = true;
  const clearAll = () => {
    for (const cache of caches) cache.clear();
    for (const follow of followers) follow(undefined);
  };
  // `undefined`: the listener reconnected, and what was sent meanwhile is lost. Entries cached
  // before the first LISTEN took effect are dropped as well.
  unlisten = db
    .listen(INVALIDATION_CHANNEL, (payload) => {
      if (payload === undefined) return clearAll();
      const invalidation = parsePayload(payload);
      if (invalidation) invalidateLocally(invalidation);
    })
    .then((stop) => {
      clearAll();
      return stop;
    })
    .catch((err) => {
      logger.warn({ err }, 'cannot listen for revocations; the cache lifetime applies');
      return undefined;
    });
}
