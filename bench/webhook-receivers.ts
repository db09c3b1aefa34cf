// The benchmark's webhook receivers: HTTPS on port 8443 (an allowed port of the URL policy) of
// distinct loopback addresses, with a certificate from a throwaway CA (test/webhooks/receiver.ts
// makes it with openssl). Unlike the test receiver they keep no bodies, only what the figures
// need: per webhook-id (= event id) the first arrival time, the event's occurredAt, and how many
// times it came.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestCa } from '../test/webhooks/receiver.ts';

export const PORT = 8443;
const HOSTS = Array.from({ length: 9 }, (_, i) => `127.0.0.${i + 1}`);

export interface Arrival {
  /** Wall-clock ms of the first arrival (headers and body read). */
  firstAt: number;
  /** occurredAt of the event, from the body. */
  occurredAt: number;
  count: number;
}

export interface BenchReceiver {
  origin: string;
  arrivals: Map<string, Arrival>;
  /** Requests received in all, duplicates included. */
  total(): number;
  /** The most requests it held at once (from headers received to answer sent). */
  maxConcurrent(): number;
  /** Each time the requests held at once went over `over` (startBenchReceivers' option): when (wall-clock ms), and the webhook-ids then open. */
  overAt(): { at: number; open: string[] }[];
  close(): Promise<void>;
}

export async function listenOnFreeHost(server: https.Server, taken: Set<string>): Promise<string> {
  for (const host of HOSTS) {
    if (taken.has(host)) continue;
    const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once('error', resolve);
      server.listen({ host, port: PORT, exclusive: true }, () => {
        server.off('error', resolve);
        resolve(undefined);
      });
    });
    if (!error) return (server.address() as AddressInfo).address;
    if (error.code !== 'EADDRINUSE') throw error;
  }
  throw new Error(`no free loopback address from ${HOSTS[0]} to ${HOSTS.at(-1)} on port ${PORT}`);
}

/** `answerMs`: how long each answer waits (0: at once), so that attempts overlap as on a real endpoint. */
export async function startBenchReceivers(count: number, tls: TestCa, answerMs = 0, over = Infinity): Promise<BenchReceiver[]> {
  const receivers: BenchReceiver[] = [];
  const taken = new Set<string>();
  for (let i = 0; i < count; i++) {
    const arrivals = new Map<string, Arrival>();
    let total = 0;
    let open = 0;
    let maxOpen = 0;
    const overAt: { at: number; open: string[] }[] = [];
    const openIds = new Set<string>();
    let requests = 0;
    const server = https.createServer({ key: tls.key, cert: tls.cert, keepAliveTimeout: 30_000 }, (req, res) => {
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      const requestId = `${String(req.headers['webhook-id'] ?? '')}#${++requests}`;
      openIds.add(requestId);
      if (open > over) overAt.push({ at: Date.now(), open: [...openIds] });
      // Counted down as the answer is written (not at 'finish': that waits for the socket's write
      // callback, which a busy process runs after the sender already has the answer and sent its
      // next request), or when the sender went away unanswered (a killed worker's connection).
      let counted = true;
      const done = () => { if (counted) { counted = false; open -= 1; openIds.delete(requestId); } };
      res.once('close', done);
      const answer = () => { done(); res.writeHead(204).end(); };
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const now = Date.now();
        total += 1;
        const id = String(req.headers['webhook-id'] ?? '');
        const seen = arrivals.get(id);
        if (seen) seen.count += 1;
        else {
          const { occurredAt } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { occurredAt: string };
          arrivals.set(id, { firstAt: now, occurredAt: Date.parse(occurredAt), count: 1 });
        }
        if (answerMs > 0) setTimeout(answer, answerMs);
        else answer();
      });
    });
    const host = await listenOnFreeHost(server, taken);
    taken.add(host);
    receivers.push({
      origin: `https://${host}:${PORT}`,
      arrivals,
      total: () => total,
      maxConcurrent: () => maxOpen,
      overAt: () => overAt,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    });
  }
  return receivers;
}
