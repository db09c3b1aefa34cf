// Every benchmark server listens on a free loopback port, tells the parent which one over the
// IPC channel, and exits on SIGTERM through process.exit (so that `--cpu-prof` writes its
// profile). It exits without draining: requests still running when the load stops are abandoned
// with their database connections, which PostgreSQL rolls back.
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function reportWhenListening(server: Server) {
  server.once('listening', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  process.once('SIGTERM', () => process.exit(0));
  // The V8 heap's peak (sampled) against the RSS peak tells the JS heap from native memory
  // (code, the wasm query compiler of Prisma, the tsx loader thread).
  let peakHeapTotal = 0;
  setInterval(() => {
    peakHeapTotal = Math.max(peakHeapTotal, process.memoryUsage().heapTotal);
  }, 250).unref();
  process.on('message', (m) => {
    if (m === 'memory') process.send?.({ memory: { ...process.memoryUsage(), peakHeapTotal } });
  });
}

export interface BenchFixture {
  apiKey: string;
  apiKeyId: number;
  boardId: string;
  productFieldId: string;
}

/** The seed's output, handed to each server as its first argument. */
export const fixtureFromArgv = (): BenchFixture => JSON.parse(process.argv[2] ?? '{}') as BenchFixture;

/** The JSON body of the request, at most 1 MiB. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1024 * 1024) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
