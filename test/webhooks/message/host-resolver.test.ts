// Webhook host names resolved off libuv's thread pool and bounded per workspace
// (src/webhooks/message/host-resolver.ts), against a DNS server on loopback (support/dns-server.ts)
// that answers the names of workspace B at once, and those of workspace A never (`slow-a`) or only
// once the test lets it (`held-a`).
import { execFileSync } from 'node:child_process';
import dns from 'node:dns';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostResolver, ResolutionsBusyError } from '../../../src/webhooks/message/host-resolver.ts';
import { validateWebhookUrl } from '../../../src/webhooks/message/url-policy.ts';
import { startDnsServer, type TestDnsServer } from '../../support/dns-server.ts';

const A = 101;
const B = 102;
let server: TestDnsServer;
/** Sampled as each question arrives: workspace A's resolutions in flight in the resolver under test. */
let sampleA: (() => number) | undefined;
const samplesA: number[] = [];
/** `held-a` names answer once this is resolved (a new one per test). */
let heldA: Promise<void> = Promise.resolve();

beforeAll(async () => {
  server = await startDnsServer(async (name) => {
    if (sampleA) samplesA.push(sampleA());
    if (name.endsWith('.slow-a.test')) return 'never';
    if (name.endsWith('.held-a.test')) return heldA.then(() => ['93.184.216.35']);
    if (name.endsWith('.b.test')) return ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'];
    if (name.endsWith('.private-b.test')) return ['10.0.0.5'];
    return undefined;
  });
});

afterAll(() => server.close());

/**
 * Holds every thread of libuv's pool: each opens a FIFO for reading, which blocks until a writer
 * opens it. `release` opens the writers (non-blocking, once each reader is there) and closes all.
 */
async function holdThreadPool(): Promise<{ release: () => Promise<void> }> {
  const size = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-'));
  const fifos = Array.from({ length: size }, (_, i) => path.join(dir, `f${i}`));
  for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
  const readers = fifos.map((fifo) => fs.promises.open(fifo, 'r'));
  return {
    async release() {
      for (const fifo of fifos) {
        for (;;) {
          try {
            fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
            break;
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err; // its reader has no thread yet
            await new Promise((r) => setTimeout(r, 10));
          }
        }
      }
      for (const reader of await Promise.all(readers)) await reader.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('the webhook host resolver', () => {
  it('answers while every thread of libuv’s pool is held (dns.lookup queued behind them waits)', async () => {
    const resolver = createHostResolver({ servers: [server.address] });
    const pool = await holdThreadPool();
    let released = false;
    try {
      // getaddrinfo needs a pool thread: it cannot finish before the pool is released.
      let lookedUp = false;
      const lookup = dns.promises.lookup('localhost').then(() => (lookedUp = true));
      expect(await resolver.resolve('hooks.b.test', B)).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
      expect(lookedUp).toBe(false);
      await pool.release();
      released = true;
      await lookup;
      expect(lookedUp).toBe(true);
    } finally {
      if (!released) await pool.release();
      resolver.close();
    }
  });

  it('keeps at most `perWorkspace` of a workspace’s names in flight, while another workspace’s resolve', async () => {
    const perWorkspace = 2;
    const resolver = createHostResolver({ servers: [server.address], perWorkspace, waitingPerWorkspace: 3 });
    let release!: () => void;
    heldA = new Promise((r) => (release = r));
    sampleA = () => resolver.inFlight(A);
    try {
      const held = Array.from({ length: 5 }, (_, i) => resolver.resolve(`n${i}.held-a.test`, A));
      expect(resolver.inFlight(A)).toBe(perWorkspace);
      // The same name asked again at once is one resolution; beyond the places and the waiting room, none.
      const again = resolver.resolve('n0.held-a.test', A);
      await expect(resolver.resolve('n5.held-a.test', A)).rejects.toBeInstanceOf(ResolutionsBusyError);
      expect(await resolver.resolve('hooks.b.test', B)).toContain('93.184.216.34');
      expect(resolver.inFlight(A)).toBe(perWorkspace);
      release();
      for (const addresses of await Promise.all([...held, again])) expect(addresses).toEqual(['93.184.216.35']);
      expect(server.asked('held-a.test')).toBe(2 * 5); // A and AAAA of each name, once
      expect(Math.max(...samplesA)).toBe(perWorkspace);
      expect(resolver.inFlight(A)).toBe(0);
    } finally {
      sampleA = undefined;
      release();
      resolver.close();
    }
  });

  it('gives a name whose DNS never answers up after one try (c-ares time-out)', async () => {
    const resolver = createHostResolver({ servers: [server.address], timeoutMs: 300 });
    try {
      await expect(resolver.resolve('never.slow-a.test', A)).rejects.toMatchObject({ code: 'ETIMEOUT' });
      expect(server.questions.filter((q) => q.name === 'never.slow-a.test')).toHaveLength(2); // A and AAAA, one try each
      expect(resolver.inFlight(A)).toBe(0);
    } finally {
      resolver.close();
    }
  });

  it('answers localhost as loopback and IP literals as themselves, without asking', async () => {
    const resolver = createHostResolver({ servers: [server.address] });
    const asked = server.questions.length;
    try {
      expect(await resolver.resolve('localhost', A)).toEqual(['127.0.0.1', '::1']);
      expect(await resolver.resolve('api.localhost.', A)).toEqual(['127.0.0.1', '::1']);
      expect(await resolver.resolve('93.184.216.34', A)).toEqual(['93.184.216.34']);
      await expect(resolver.resolve('nothing.test', A)).rejects.toMatchObject({ code: 'ENOTFOUND' });
      expect(server.questions.length - asked).toBe(2); // nothing.test: A and AAAA
    } finally {
      resolver.close();
    }
  });
});

describe('saving a webhook URL', () => {
  it('resolves in the workspace’s lane: 429 once the workspace has as many names in flight and waiting as it may', async () => {
    const resolver = createHostResolver({ servers: [server.address], perWorkspace: 1, waitingPerWorkspace: 1, timeoutMs: 300 });
    const options = (workspaceId: number) => ({ allowPrivateTargets: false, resolve: (name: string) => resolver.resolve(name, workspaceId) });
    const refusal = [{ path: '/url', message: 'breaks the URL rule: the host name must resolve, and only to public addresses' }];
    let release!: () => void;
    heldA = new Promise((r) => (release = r));
    try {
      expect(await validateWebhookUrl('https://hooks.b.test/in', options(B))).toEqual([]);
      expect(await validateWebhookUrl('https://hooks.private-b.test/in', options(B))).toEqual(refusal);
      expect(await validateWebhookUrl('https://never.slow-a.test/in', options(A))).toEqual(refusal);
      const first = validateWebhookUrl('https://one.held-a.test/in', options(A));
      const second = validateWebhookUrl('https://two.held-a.test/in', options(A));
      await expect(validateWebhookUrl('https://three.held-a.test/in', options(A))).rejects.toMatchObject({ code: 'rate_limited', headers: { 'Retry-After': '5' } });
      release();
      expect(await first).toEqual([]);
      expect(await second).toEqual([]);
    } finally {
      release();
      resolver.close();
    }
  });
});
