// The delivery connections' bounds (src/webhooks/message/delivery-agent.ts), counted where they cost:
// the process's file descriptors (/proc/self/fd). The receiver keeps every connection open for
// good, as a tenant's receivers on wildcard subdomains may; every name resolves to it (a stub
// resolver, no DNS). The receiver runs in this process, so each connection open counts twice: its
// end here and the receiver's.
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookSender } from '../../../src/webhooks/message/webhook-sender.ts';
import { createTestCa, startReceiver, type Receiver, type TestCa } from '../receiver.ts';

const openDescriptors = () => fs.readdirSync('/proc/self/fd').length;
/** Descriptors this process may open or close meanwhile besides the connections (the database, vitest's own). */
const SLACK = 6;

let tls: TestCa;
let receiver: Receiver;
let baseline: number;
const ws = { workspaceId: 1 };
const senders: ReturnType<typeof createWebhookSender>[] = [];

beforeAll(async () => {
  tls = createTestCa(['*.tenant.test']);
  receiver = await startReceiver(tls, { neverClose: true });
  receiver.respond('/hook', { status: 200, body: 'ok' });
  baseline = openDescriptors();
});

// Each test starts with none of the previous one's connections open.
afterEach(async () => {
  for (const sender of senders.splice(0)) sender.close();
  await until("the test's connections are closed", () => openDescriptors() <= baseline + SLACK);
});

afterAll(() => receiver.close());

function senderWith(sockets: { total?: number; perHost?: number; idleMs?: number }, timeoutMs = 5_000) {
  const sender = createWebhookSender({ allowPrivateTargets: true, ca: tls.ca, timeoutMs, sockets, hosts: { resolve: async () => [receiver.host] } });
  senders.push(sender);
  return sender;
}

/** Waits until `done()`; looks every 50 ms (one readdir of /proc/self/fd each time while nothing changes). */
async function until(what: string, done: () => boolean, timeoutMs = 20_000) {
  for (const end = Date.now() + timeoutMs; !done(); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
  }
}

describe('delivery connections', () => {
  it('keep at most `total` open across receivers that never close, closing an idle one for a new receiver', async () => {
    const sender = senderWith({ total: 8, idleMs: 60_000 });
    const before = openDescriptors();
    const connections = receiver.connections;
    for (let i = 1; i <= 30; i++) {
      // Each a new name: a new connection, which the receiver never closes.
      const result = await sender.send(`https://h${i}.tenant.test:8443/hook`, {}, '{}', ws);
      // Sent at once, not after waiting for an idle connection to time out (60 s here, beyond the 5 s limit).
      expect(result, `h${i}`).toMatchObject({ httpStatus: 200 });
    }
    expect(receiver.connections - connections).toBe(30);
    expect(openDescriptors() - before).toBeLessThanOrEqual(2 * 8 + SLACK);
  });

  it('close a kept-alive connection after `idleMs` idle', async () => {
    const sender = senderWith({ idleMs: 300 });
    const { connections, open } = receiver;
    const closedBefore = receiver.idleAtClose.length;
    for (let i = 1; i <= 12; i++) expect(await sender.send(`https://idle${i}.tenant.test:8443/hook`, {}, '{}', ws)).toMatchObject({ httpStatus: 200 });
    expect(receiver.connections - connections).toBe(12);
    // The sender stays open and the receiver never closes: only the idle time-out closes them ...
    await until('the idle connections are closed', () => receiver.open === open);
    // ... and none before it had been idle `idleMs` (a machine under load can only make it later).
    const idle = receiver.idleAtClose.slice(closedBefore);
    expect(idle).toHaveLength(12);
    for (const ms of idle) expect(ms).toBeGreaterThanOrEqual(300 - 5);
  });

  it('open at most `perHost` connections to one receiver for one workspace; more of its requests wait, another workspace’s do not', async () => {
    const sender = senderWith({ perHost: 3, idleMs: 60_000 });
    // Workspace 1's answers wait until the test lets them go: its three connections stay busy.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    receiver.respond('/held', async () => {
      await released;
      return { status: 200 };
    });
    const before = receiver.connections;
    const held = Array.from({ length: 10 }, () => sender.send('https://shared.tenant.test:8443/held', {}, '{}', { workspaceId: 1 }));
    await until('workspace 1 has its three requests at the receiver', () => receiver.received('/held').length === 3);
    // The same receiver for workspace 2 (a host many tenants share): its own connection, answered while workspace 1's wait.
    expect(await sender.send('https://shared.tenant.test:8443/hook', {}, '{}', { workspaceId: 2 })).toMatchObject({ httpStatus: 200 });
    expect(receiver.received('/held')).toHaveLength(3);
    release();
    expect((await Promise.all(held)).map((r) => r.httpStatus)).toEqual(Array(10).fill(200));
    expect(receiver.connections - before).toBe(3 + 1);
  });
});
