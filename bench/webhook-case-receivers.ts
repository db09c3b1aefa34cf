// Receivers of the webhook cases (bench/webhook-cases.ts): one HTTPS server answers many
// subscriptions, each on its own path, so arrivals are kept per (path, webhook-id). A receiver
// may answer after a delay (a slow receiver) and counts the connections it has open at once.
import https from 'node:https';
import type { Socket } from 'node:net';
import type { TestCa } from '../test/webhooks/receiver.ts';
import { listenOnFreeHost, PORT } from './webhook-receivers.ts';
import type { Arrival } from './webhook-receivers.ts';

export interface CaseReceiver {
  origin: string;
  /** Arrivals per path (one subscription each), per webhook-id. */
  arrivals(path: string): Map<string, Arrival>;
  /** Most connections open at once, and requests being answered at once, since the last reset. */
  peaks(): { connections: number; requests: number };
  resetPeaks(): void;
  close(): Promise<void>;
}

const takenHosts = new Set<string>();

export async function startCaseReceiver(tls: TestCa, options: { delayMs?: number } = {}): Promise<CaseReceiver> {
  const byPath = new Map<string, Map<string, Arrival>>();
  const arrivals = (path: string) => {
    let m = byPath.get(path);
    if (!m) byPath.set(path, (m = new Map<string, Arrival>()));
    return m;
  };
  const sockets = new Set<Socket>();
  let requests = 0;
  let peak = { connections: 0, requests: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const server = https.createServer({ key: tls.key, cert: tls.cert, keepAliveTimeout: 30_000 }, (req, res) => {
    requests += 1;
    peak.requests = Math.max(peak.requests, requests);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      const m = arrivals(req.url ?? '/');
      const id = String(req.headers['webhook-id'] ?? '');
      const seen = m.get(id);
      if (seen) seen.count += 1;
      else {
        const { occurredAt } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { occurredAt: string };
        m.set(id, { firstAt: now, occurredAt: Date.parse(occurredAt), count: 1 });
      }
      const answer = () => {
        requests -= 1;
        res.writeHead(204).end();
      };
      if (!options.delayMs) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, options.delayMs);
      timers.add(timer);
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    peak.connections = Math.max(peak.connections, sockets.size);
    socket.once('close', () => sockets.delete(socket));
  });
  const host = await listenOnFreeHost(server, takenHosts);
  takenHosts.add(host);
  return {
    origin: `https://${host}:${PORT}`,
    arrivals,
    peaks: () => ({ ...peak }),
    resetPeaks: () => void (peak = { connections: sockets.size, requests }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
