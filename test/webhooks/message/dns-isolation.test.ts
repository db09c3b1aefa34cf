// One tenant's DNS stalls no one (issue 47): workspace A points a dozen subscriptions at names its
// DNS never answers, more than libuv's pool has threads (4) and more than A may resolve at once
// (RESOLUTIONS_PER_WORKSPACE), and keeps its lane full of such names (as saving URLs over and over
// would: each c-ares query gives up after at most 5 s, and another takes its place). Meanwhile
// workspace B's delivery arrives and a person signs in (argon2, on libuv's pool). The delivery runs
// on a Temporal dev server with the outbox relay and the real delivery activities; names go to a
// DNS server on loopback (support/dns-server.ts) through WEBHOOK_DNS_SERVERS, as an operator would set it.
//
// The configuration is this file's (loadConfig), handed in before anything reads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { prisma } from '../../../src/db/db.ts';
import { webhookHosts, RESOLUTIONS_PER_WORKSPACE } from '../../../src/webhooks/message/host-resolver.ts';
import { startDevServerDeliveryStack } from '../../support/delivery-stack.ts';
import { startDnsServer, type DnsAnswer } from '../../support/dns-server.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { ticketBody } from '../../tickets/helpers.ts';
import { createSubscription } from '../fixtures.ts';
import { createTestCa, startReceiver, type Receiver } from '../receiver.ts';

let receiver: Receiver | undefined;
/** Workspace A's resolutions in flight, sampled as each of B's questions arrives. */
let sampleA: (() => number) | undefined;
const samplesA: number[] = [];
const dnsServer = await startDnsServer((name): DnsAnswer | undefined => {
  if (name.endsWith('.slow-a.test')) return 'never';
  if (name.endsWith('.b.test') && receiver) {
    if (sampleA) samplesA.push(sampleA());
    return [receiver.host];
  }
  return undefined;
});
loadConfig({ ...process.env, WEBHOOK_DNS_SERVERS: dnsServer.address, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });

const A_SUBSCRIPTIONS = 12;
const stops: (() => Promise<unknown>)[] = [() => dnsServer.close()];

/** Waits until `done()` holds; looks every 50 ms (a read of the test's own arrays, or one query). */
async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 60_000) {
  for (const end = Date.now() + timeoutMs; !(await done()); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
  }
}

beforeAll(async () => {
  const tls = createTestCa(['*.b.test']);
  receiver = await startReceiver(tls);
  receiver.respond('/hook', { status: 204 });
  stops.push(() => receiver!.close());
  const stack = await startDevServerDeliveryStack({ queue: 'dns-isolation', tls });
  stops.push(() => stack.stop());
}, 240_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}, 60_000);

describe('a workspace whose DNS never answers', () => {
  it('delays neither another workspace’s delivery nor anyone’s sign-in', { timeout: 120_000 }, async () => {
    const a = await createTestWorkspace('Slow DNS');
    const b = await createTestWorkspace('Neighbour');
    for (let i = 1; i <= A_SUBSCRIPTIONS; i++) await createSubscription(a, { url: `https://h${i}.slow-a.test:8443/hook`, events: ['ticket.created'] });
    await createSubscription(b, { url: 'https://hooks.b.test:8443/hook', events: ['ticket.created'] });

    const fromA = await api('POST', '/tickets', { key: (await a.key()).value, body: ticketBody(a) });
    expect(fromA.status, fromA.text).toBe(201);
    await until('A’s runs ask for their names', () => dnsServer.asked('slow-a.test') >= 2 * RESOLUTIONS_PER_WORKSPACE);
    // A keeps its lane full: a new name as soon as one gives up.
    let hanging = true;
    let n = 0;
    const keepAsking = async () => {
      while (hanging) await webhookHosts.resolve(`x${n++}.slow-a.test`, a.workspace.id).catch(() => undefined);
    };
    const hammer = Array.from({ length: RESOLUTIONS_PER_WORKSPACE }, keepAsking);
    sampleA = () => webhookHosts.inFlight(a.workspace.id);

    const fromB = await api('POST', '/tickets', { key: (await b.key()).value, body: ticketBody(b) });
    expect(fromB.status, fromB.text).toBe(201);
    const signIn = api('POST', '/graphql', {
      body: { query: 'mutation($email: String!, $password: String!) { signIn(email: $email, password: $password) { id } }', variables: { email: b.admin.email, password: 'correct horse battery staple' } },
    });
    await until('B’s delivery has arrived', () => receiver!.received('/hook').length > 0);
    const signedIn = await signIn;
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.errors).toBeUndefined();
    expect(signedIn.body.data.signIn.id).toBe(b.admin.id);
    hanging = false;
    sampleA = undefined;
    // B's name was resolved while A had as many names in flight as it may.
    expect(samplesA.length).toBeGreaterThan(0);
    for (const inFlight of samplesA) expect(inFlight).toBe(RESOLUTIONS_PER_WORKSPACE);
    const bodies = receiver!.received('/hook').map((r) => JSON.parse(r.body));
    // B's event (a batch retried under load may bring it twice, with the same webhook-id), nothing of A's.
    for (const body of bodies) expect(body.data.id).toBe(fromB.body.id);
    await Promise.all(hammer);

    // A's own deliveries fail, each with the neutral error of a name that does not resolve (or that A had too many being resolved).
    await until('A’s attempts are recorded', async () => (await prisma.deliveryAttempt.count({ where: { subscription: { workspaceId: a.workspace.id } } })) === A_SUBSCRIPTIONS);
    const attempts = await prisma.deliveryAttempt.findMany({ where: { subscription: { workspaceId: a.workspace.id } }, select: { httpStatus: true, error: true } });
    for (const attempt of attempts) {
      expect(attempt.httpStatus).toBeNull();
      expect(attempt.error).toMatch(/resolves to an address the webhook URL rule refuses, or does not resolve|host names being resolved already/);
    }
  });
});
