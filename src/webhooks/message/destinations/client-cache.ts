// The broker connections of one worker: one client per subscription and settings (a changed
// credential or address gets a new one), opened on first use, shared by its batches, closed after
// `idleMs` unused, and at most `max` open (the least recently used idle one is closed to make room).
// What a broken connection needs is the sender's call: `drop` closes it, and the next use opens anew.
import crypto from 'node:crypto';

interface Entry<T> {
  client: Promise<T>;
  users: number;
  lastUsed: number;
  idle?: NodeJS.Timeout;
}

export interface ClientCacheOptions<T> {
  max: number;
  idleMs: number;
  close: (client: T) => Promise<void>;
}

/** The cache key of a destination: its subscription and a digest of everything that reaches the broker. */
export function clientKey(subscriptionId: string, ...parts: unknown[]): string {
  return `${subscriptionId}:${crypto.createHash('sha256').update(JSON.stringify(parts)).digest('base64url')}`;
}

export class ClientCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  constructor(private readonly options: ClientCacheOptions<T>) {}

  get size() {
    return this.entries.size;
  }

  /** Runs `fn` with the key's client, opening it with `open` when there is none. */
  async use<R>(key: string, open: () => Promise<T>, fn: (client: T) => Promise<R>): Promise<R> {
    let entry = this.entries.get(key);
    if (!entry) {
      this.makeRoom();
      const opening = open();
      entry = { client: opening, users: 0, lastUsed: Date.now() };
      this.entries.set(key, entry);
      opening.catch(() => {
        if (this.entries.get(key)?.client === opening) this.entries.delete(key);
      });
    }
    clearTimeout(entry.idle);
    entry.users += 1;
    try {
      return await fn(await entry.client);
    } finally {
      entry.users -= 1;
      entry.lastUsed = Date.now();
      if (entry.users === 0 && this.entries.get(key) === entry) {
        entry.idle = setTimeout(() => void this.drop(key), this.options.idleMs);
        entry.idle.unref();
      }
    }
  }

  /** Closes the key's client (after an error that broke it); the next use opens a new one. */
  async drop(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    clearTimeout(entry.idle);
    await entry.client.then((c) => this.options.close(c)).catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((k) => this.drop(k)));
  }

  private makeRoom() {
    if (this.entries.size < this.options.max) return;
    let oldest: [string, Entry<T>] | undefined;
    for (const e of this.entries) if (e[1].users === 0 && (!oldest || e[1].lastUsed < oldest[1].lastUsed)) oldest = e;
    if (oldest) void this.drop(oldest[0]);
  }
}
