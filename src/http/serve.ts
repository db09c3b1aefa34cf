// Serves a fetch handler on a port, and closes it gracefully: no new connections, the requests
// in flight finish with their answers (each connection closed as soon as it is idle, so a
// keep-alive client cannot slip in another request), and after `graceMs` whatever is left is cut.
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';

interface HttpListener {
  port: number;
  close(graceMs?: number): Promise<void>;
}

export async function serveHttp(fetch: (request: Request) => Response | Promise<Response>, port: number, hostname: string): Promise<HttpListener> {
  const server = serve({ fetch, port, hostname }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as { port: number }).port,
    close: (graceMs = 25_000) =>
      (closing ??= new Promise<void>((resolve) => {
        const idle = setInterval(() => server.closeIdleConnections(), 100);
        const cut = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearInterval(idle);
          clearTimeout(cut);
          resolve();
        });
      })),
  };
}
