// LISTEN/NOTIFY for the process: one dedicated PostgreSQL connection (outside Prisma's pool,
// which would hand a LISTENing connection to other queries and drop its notifications) shared by
// every channel, reconnected with back-off when it breaks. After a reconnect each handler is
// called with `undefined`: notifications sent while the connection was down are lost, so
// listeners must look for themselves (the outbox relay drains; a cache would clear).
import pg from 'pg';
import { aborted, supervise, type SupervisedRun, type Supervisor } from '../supervise.ts';

/** `undefined`: the connection was re-established and notifications may have been missed. */
export type NotifyHandler = (payload: string | undefined) => void;
export type Unlisten = () => Promise<void>;

export interface NotifyListener {
  listen(channel: string, handler: NotifyHandler): Promise<Unlisten>;
  close(): Promise<void>;
}

const quote = (channel: string) => `"${channel.replaceAll('"', '""')}"`;

export function createPgNotifyListener(connectionString: string, { maxBackoffMs = 5_000 } = {}): NotifyListener {
  const handlers = new Map<string, Set<NotifyHandler>>();
  let client: pg.Client | undefined;
  /** Channels LISTENed on `client` (a new connection listens afresh). */
  let listening = new Set<string>();
  /** Settles when the current connection attempt has (connected and listening, or failed). */
  let connecting: Promise<void> | undefined;
  /** Holds the connection while anyone listens: connects, and again with back-off when it breaks. */
  let supervisor: Supervisor | undefined;
  let closed = false;

  const notifyAll = (channel: string, payload: string | undefined) => {
    for (const handler of handlers.get(channel) ?? []) handler(payload);
  };

  /** LISTEN and UNLISTEN one at a time: pg deprecates a query sent while another runs. */
  let commands: Promise<unknown> = Promise.resolve();
  function command(c: pg.Client, sql: string): Promise<unknown> {
    const next = commands.then(() => c.query(sql));
    commands = next.catch(() => undefined);
    return next;
  }

  async function ensureListening(channel: string) {
    if (!client || listening.has(channel)) return;
    listening.add(channel);
    await command(client, `LISTEN ${quote(channel)}`);
  }

  /** One connection, from connect to its loss. */
  async function connection({ signal, healthy, failures }: SupervisedRun): Promise<void> {
    const c = new pg.Client({ connectionString, keepAlive: true, application_name: 'listen' });
    c.on('notification', (n) => notifyAll(n.channel, n.payload));
    // 'error' and 'end' both mean this connection is done.
    const lost = new Promise<Error | undefined>((resolve) => {
      c.on('error', resolve);
      c.on('end', () => resolve(undefined));
    });
    const setup = (async () => {
      await c.connect();
      if (signal.aborted) return;
      client = c;
      listening = new Set();
      for (const channel of handlers.keys()) await ensureListening(channel);
    })();
    connecting = setup.catch(() => undefined);
    try {
      await setup;
      if (signal.aborted) return;
      const missed = failures() > 0;
      healthy();
      if (missed) for (const channel of handlers.keys()) notifyAll(channel, undefined);
      const err = await Promise.race([lost, aborted(signal).then(() => undefined)]);
      if (!signal.aborted) throw err ?? new Error('the connection ended');
    } finally {
      if (client === c) client = undefined;
      await c.end().catch(() => undefined);
    }
  }

  async function stopConnection() {
    const s = supervisor;
    supervisor = undefined;
    await s?.stop();
  }

  return {
    async listen(channel, handler) {
      let set = handlers.get(channel);
      if (!set) handlers.set(channel, (set = new Set()));
      set.add(handler);
      // A connection that cannot be made keeps trying in the background; the caller's fallback
      // (a slow poll) covers the gap, and the reconnect calls the handler.
      if (!closed) supervisor ??= supervise({
        run: connection,
        backoffMs: (failures) => Math.min(maxBackoffMs, 100 * 2 ** Math.min(failures, 10)),
        failed: 'notification listener lost or cannot make its database connection; reconnecting',
        recovered: 'notification listener reconnected',
        unref: true,
      });
      await connecting;
      await ensureListening(channel).catch(() => undefined);
      return async () => {
        set.delete(handler);
        if (set.size > 0 || handlers.get(channel) !== set) return;
        handlers.delete(channel);
        // Nobody listens: hold no connection (a later listen connects again).
        if (handlers.size === 0) await stopConnection();
        else if (client && listening.delete(channel)) await command(client, `UNLISTEN ${quote(channel)}`).catch(() => undefined);
      };
    },
    async close() {
      closed = true;
      await stopConnection();
      handlers.clear();
    },
  };
}
