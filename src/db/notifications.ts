// PostgreSQL LISTEN on a connection of its own (a pooled connection cannot keep listening), so
// that every API instance hears what another one committed. A lost connection is re-opened with
// a growing delay; `onListening` runs after every successful LISTEN, first or renewed, since
// messages sent while the connection was down are gone.
import pg from 'pg';
import { logger } from '../logger.ts';

const notifyChannelName = /^[a-z_]+$/;

export interface Listener {
  stop(): Promise<void>;
}

export function listenForNotifications(
  url: string,
  channel: string,
  handlers: { onMessage(payload: string): void; onListening(): void },
): Listener {
  if (!notifyChannelName.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let client: pg.Client | undefined;
  let stopped = false;
  let retryMs = 500;
  let timer: NodeJS.Timeout | undefined;

  async function connect() {
    const c = new pg.Client({ connectionString: url, application_name: `listen:${channel}` });
    client = c;
    let lost = false;
    const reconnect = (err?: Error) => {
      if (lost || stopped) return;
      lost = true;
      logger.warn({ err, channel }, 'notification listener lost its connection; reconnecting');
      c.end().catch(() => undefined);
      timer = setTimeout(() => void connect(), retryMs);
      retryMs = Math.min(retryMs * 2, 30_000);
    };
    c.on('error', reconnect);
    c.on('end', () => reconnect());
    c.on('notification', (msg) => {
      if (msg.channel === channel && msg.payload !== undefined) handlers.onMessage(msg.payload);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (stopped) return void (await c.end());
      retryMs = 500;
      handlers.onListening();
    } catch (err) {
      reconnect(err as Error);
    }
  }

  void connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
