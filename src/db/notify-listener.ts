// LISTEN/NOTIFY for the process: one dedicated PostgreSQL connection (outside Prisma's pool,
// which would hand a LISTENing connection to other queries and drop its notifications) shared by
// every channel, reconnected with back-off when it breaks. After a reconnect each handler is
// called with `undefined`: notifications sent while the connection was down are lost, so
// listeners must look for themselves (the outbox relay drains; a cache would clear).
import pg from 'pg';
import { logger } from '../logger.ts';

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
  let connecting: Promise<void> | undefined;
  let closed = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;

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

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString, keepAlive: true, application_name: 'listen' });
    c.on('notification', (n) => notifyAll(n.channel, n.payload));
    // 'error' and 'end' both mean this connection is done.
    const lost = (err?: Error) => {
      if (client !== c) return;
      client = undefined;
      void c.end().catch(() => undefined);
      if (!closed) logger.warn({ err }, 'notification listener lost its database connection; reconnecting');
      scheduleReconnect();
    };
    c.on('error', lost);
    c.on('end', () => lost());
    await c.connect();
    if (closed) {
      await c.end();
      return;
    }
    client = c;
    listening = new Set();
    for (const channel of handlers.keys()) await ensureListening(channel);
    if (failures > 0) {
      logger.info('notification listener reconnected');
      failures = 0;
      for (const channel of handlers.keys()) notifyAll(channel, undefined);
    }
  }

  function startConnecting(): Promise<void> {
    connecting = connect()
      .catch((err) => {
        if (failures === 0 || failures % 20 === 0) logger.warn({ err, failures }, 'notification listener cannot connect; retrying');
        scheduleReconnect();
      })
      .finally(() => (connecting = undefined));
    return connecting;
  }

  function scheduleReconnect() {
    if (closed || retryTimer) return;
    failures += 1;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void startConnecting();
    }, Math.min(maxBackoffMs, 100 * 2 ** Math.min(failures, 10)));
    retryTimer.unref();
  }

  return {
    async listen(channel, handler) {
      let set = handlers.get(channel);
      if (!set) handlers.set(channel, (set = new Set()));
      set.add(handler);
      // A connection that cannot be made keeps trying in the background; the caller's fallback
      // (a slow poll) covers the gap, and the reconnect calls the handler.
      if (!client && !connecting && !retryTimer) void startConnecting();
      await connecting;
      await ensureListening(channel).catch(() => undefined);
      return async () => {
        set.delete(handler);
        if (set.size > 0 || handlers.get(channel) !== set) return;
        handlers.delete(channel);
        if (handlers.size === 0) {
          // Nobody listens: hold no connection (a later listen connects again).
          clearTimeout(retryTimer);
          retryTimer = undefined;
          const c = client;
          client = undefined;
          await c?.end().catch(() => undefined);
        } else if (client && listening.delete(channel)) await command(client, `UNLISTEN ${quote(channel)}`).catch(() => undefined);
      };
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await connecting;
      const c = client;
      client = undefined;
      handlers.clear();
      await c?.end().catch(() => undefined);
    },
  };
}
