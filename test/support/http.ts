// HTTP helpers of the test kit: the service's app on a loopback port (`serveApp`), and free ports.
// Requests go through `api()` (fixtures.ts): in-process, on another app, or to an origin.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from '../../src/http/app.ts';

export { freePort } from '../../scripts/free-port.ts';

type App = ReturnType<typeof createApp>;

/** The service's HTTP app (or the one given) on 127.0.0.1 and a free port (or the one given). */
export async function serveApp(app: App = createApp(), port = 0): Promise<{ origin: string; close(): Promise<void> }> {
  const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
