// Each broker destination end to end from the REST API against its real broker (started by the
// tests, test/support/brokers.ts): created with sealed credentials, tested, delivered in order,
// retried through an outage of the broker, paused and resumed in order, and recovered since T.
// The brokers are this file's own (`ownBroker`): an outage here must not stop the shared ones.
// Subscriptions to loopback addresses need WEBHOOK_ALLOW_PRIVATE_TARGETS, and one-second retry
// delays WEBHOOK_RETRY_MIN_DELAY_SECONDS: handed in with loadConfig (an isolated file).
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { prisma } from '../../../src/db/db.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { startDevServerDeliveryStack } from '../../support/delivery-stack.ts';
import { ownBroker } from '../../support/brokers.ts';
import { createTestCa } from '../receiver.ts';
import { gql, ticketBody } from '../../tickets/helpers.ts';
import { eventbridgePlace, kafkaPlace, natsPlace, rabbitmqPlace, sqsPlace, type Place, type Received } from './readers.ts';

loadConfig({ ...process.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_MIN_DELAY_SECONDS: '1' });

type Ws = Awaited<ReturnType<typeof createTestWorkspace>>;
type Outage = { begin(): Promise<void> | void; end(): Promise<void> | void; close(): Promise<void> };

/** One moto of the file's own for SQS and EventBridge (their cases run one after the other), closed with the file. */
let aws: ReturnType<typeof ownBroker<'aws'>> | undefined;
const ownAws = () => (aws ??= ownBroker('aws'));

/** Each type: its broker (this file's own), a fresh place on it, and how it goes away and comes back. */
const CASES: { type: string; ordered: boolean; start: () => Promise<{ place: () => Promise<Place>; outage: Outage }> }[] = [
  {
    type: 'sqs',
    ordered: true,
    async start() {
      const b = await ownAws();
      // moto keeps its queues in memory: a stopped one comes back empty, so its outage is a freeze (no answer at all).
      return { place: () => sqsPlace(b.address, { fifo: true }), outage: { begin: () => b.freeze(), end: () => b.thaw(), close: async () => undefined } };
    },
  },
  {
    type: 'eventbridge',
    ordered: false,
    async start() {
      const b = await ownAws();
      return { place: () => eventbridgePlace(b.address), outage: { begin: () => b.freeze(), end: () => b.thaw(), close: async () => undefined } };
    },
  },
  {
    type: 'kafka',
    ordered: true,
    async start() {
      const b = await ownBroker('kafka');
      return { place: () => kafkaPlace(b.address), outage: { begin: () => b.stop(), end: () => b.start(), close: () => b.close() } };
    },
  },
  {
    type: 'rabbitmq',
    ordered: true,
    async start() {
      const b = await ownBroker('rabbitmq');
      // Frozen (a hung server: each attempt waits out the time limit) rather than stopped: a restart
      // of RabbitMQ takes seconds, and the sender's own test stops and starts one
      // (sender-rabbitmq.test.ts), as this file does with Kafka and NATS.
      return { place: () => rabbitmqPlace(b.address), outage: { begin: () => b.freeze(), end: () => b.thaw(), close: () => b.close() } };
    },
  },
  {
    type: 'nats',
    ordered: true,
    async start() {
      const b = await ownBroker('nats');
      return { place: () => natsPlace(b.address), outage: { begin: () => b.stop(), end: () => b.start(), close: () => b.close() } };
    },
  },
];

/** Polls `probe` (every 100 ms, for at most `seconds`) until it returns something truthy. */
async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, seconds = 60): Promise<T> {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`still waiting for ${what} after ${seconds} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let stop: (() => Promise<void>) | undefined;
let ws: Ws;
let key: string;

/** Each case's broker, started once: all of them while the stack starts (the starts mostly wait on their servers' boots), each awaited by its own case. */
const started = new Map<string, ReturnType<(typeof CASES)[number]['start']>>();
const startCase = (c: (typeof CASES)[number]) => {
  let b = started.get(c.type);
  if (!b) started.set(c.type, (b = c.start()));
  return b;
};

beforeAll(async () => {
  // A start that fails is its case's to report (awaited again in its beforeAll).
  for (const c of CASES) void startCase(c).catch(() => undefined);
  ({ stop } = await startDevServerDeliveryStack({ queue: 'destinations', tls: createTestCa(), recover: true, activities: () => ({ mailer: null, timeoutMs: 2_000 }) }));
  ws = await createTestWorkspace();
  key = (await ws.key({ scopes: ['webhooks:manage', 'tickets:write', 'tickets:read'] })).value;
}, 180_000);

afterAll(async () => {
  await stop?.();
  await (await aws?.catch(() => undefined))?.close();
}, 60_000);

const createTicket = async (subject: string) => {
  const res = await api('POST', '/tickets', { key, body: ticketBody(ws, { subject }) });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number };
};
const ticketIdOf = (m: Received) => (JSON.parse(m.body) as { data: { id: number } }).data.id;
const subjectOf = (m: Received) => (JSON.parse(m.body) as { data: { subject?: string } }).data.subject;

describe.each(CASES)('$type destination', (c) => {
  const { type, ordered } = c;
  let broker: Awaited<ReturnType<(typeof CASES)[number]['start']>>;
  let place: Place;
  let sub: { id: string; secret: string };

  beforeAll(async () => {
    broker = await startCase(c);
    place = await broker.place();
  }, 180_000);

  afterAll(async () => {
    await place?.close().catch(() => undefined);
    await broker?.outage.close();
  }, 60_000);

  const arrived = (n: number) => until(`${n} messages at the ${type} destination`, async () => ((await place.read()).length >= n ? place.read() : null));

  it('is created from the REST API with its credentials sealed, never returned', async () => {
    const destination = place.destination;
    const res = await api('POST', '/webhooks', {
      key,
      body: { destination, events: ['ticket.created', 'ticket.updated'], ordering: 'strict', retrySchedule: { delaysSeconds: [1, 2, 4, 8, 15, 30] } },
    });
    expect(res.status, res.text).toBe(201);
    const { credentials, ...settings } = destination as { credentials?: Record<string, string> };
    expect(res.body.destination).toMatchObject(settings);
    expect(res.body.destination).not.toHaveProperty('credentials');
    sub = { id: res.body.id, secret: res.body.secret };
    const read = await api('GET', `/webhooks/${sub.id}`, { key });
    expect(read.body.destination.type).toBe(type);
    const row = await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } });
    expect(row.destinationType).toBe(type);
    for (const secret of Object.values(credentials ?? {})) {
      expect(read.text).not.toContain(secret === 'test' ? '"test"' : secret);
      expect(JSON.stringify(row.destination)).not.toContain(secret);
    }
    if (credentials) expect(row.destinationCredentials).toMatch(/^enc2\./);
  });

  it('receives the Test action’s webhook.test, signed', async () => {
    const res = await api('POST', `/webhooks/${sub.id}/test`, { key });
    expect(res.status, res.text).toBeLessThan(300);
    const [m] = await arrived(1);
    expect(JSON.parse(m.body)).toMatchObject({ type: 'webhook.test', data: { subscriptionId: sub.id } });
    expect(m.headers['webhook-id']).toBe(res.body.eventId);
    // Standard Webhooks' own verifier: the signature travels with the message.
    expect(new Webhook(sub.secret).verify(m.body, m.headers)).toMatchObject({ type: 'webhook.test' });
  });

  it('delivers ticket events in order, each acknowledged in the delivery log', async () => {
    const before = (await place.read()).length;
    const tickets = [];
    for (let i = 0; i < 4; i++) tickets.push(await createTicket(`${type} order ${i}`));
    const got = (await arrived(before + 4)).slice(before);
    if (ordered) expect(got.map(ticketIdOf)).toEqual(tickets.map((t) => t.id));
    else expect(got.map(ticketIdOf).sort()).toEqual(tickets.map((t) => t.id).sort());
    const log = await api('GET', `/webhooks/${sub.id}/deliveries?status=succeeded`, { key });
    expect(log.status).toBe(200);
    expect(log.body.data.length).toBeGreaterThanOrEqual(5);
    expect(log.body.data[0]).toMatchObject({ status: 'succeeded', httpStatus: null });
  });

  // The schedule (1, 2, 4, 8, 15, 30 s) outlasts a broker's restart on a busy machine (RabbitMQ's takes seconds).
  it('retries through an outage of the broker, and nothing is lost', async () => {
    await broker.outage.begin();
    let ticket: { id: number };
    try {
      ticket = await createTicket(`${type} outage`);
      const failed = await until('a failed attempt in the log', async () => {
        const log = await api('GET', `/webhooks/${sub.id}/deliveries?status=failed`, { key });
        return log.body.data?.[0];
      });
      expect(failed.error).toEqual(expect.any(String));
    } finally {
      await broker.outage.end();
    }
    // Every message read back (a Kafka reader replaced after the outage reads again from the start).
    await until(`ticket ${ticket!.id} at the ${type} destination`, async () => (await place.read()).some((m) => ticketIdOf(m) === ticket.id));
  }, 120_000);

  it('holds deliveries while paused, and sends them in order when resumed', async () => {
    // Pausing by hand is the settings UI's (GraphQL); resuming is REST's too.
    const paused = await gql(key, 'mutation($id: String!) { pauseWebhookSubscription(id: $id) { condition } }', { id: sub.id });
    expect(paused.data?.pauseWebhookSubscription).toEqual({ condition: 'paused' });
    const tickets = [await createTicket(`${type} held 1`), await createTicket(`${type} held 2`)];
    // Theirs (a retry still due from the outage is held with them).
    await until('the deliveries held', async () => (await prisma.delivery.count({ where: { subscriptionId: sub.id, status: 'held', event: { ticketId: { in: tickets.map((t) => t.id) } } } })) === 2);
    // Nothing of theirs while paused (a late duplicate of an earlier outage's attempt may still come).
    expect((await place.read()).filter((m) => tickets.some((t) => t.id === ticketIdOf(m)))).toEqual([]);
    expect((await api('POST', `/webhooks/${sub.id}/resume`, { key })).status).toBe(200);
    const theirs = async () => (await place.read()).filter((m) => tickets.some((t) => t.id === ticketIdOf(m)));
    const got = await until('the held deliveries', async () => ((await theirs()).length >= 2 ? theirs() : null));
    if (ordered) expect(got.map(subjectOf)).toEqual([`${type} held 1`, `${type} held 2`]);
    expect(got.map(ticketIdOf).sort()).toEqual(tickets.map((t) => t.id).sort());
  }, 60_000);

  it('recovers what failed since T once the broker is back', async () => {
    // One attempt only: what fails while the broker is away stays failed until recovered.
    expect((await api('PATCH', `/webhooks/${sub.id}`, { key, body: { retrySchedule: { delaysSeconds: [] } } })).status).toBe(200);
    const since = new Date().toISOString();
    await broker.outage.begin();
    let ticket: { id: number };
    try {
      ticket = await createTicket(`${type} recovered`);
      await until('the delivery failed', async () => (await prisma.delivery.count({ where: { subscriptionId: sub.id, status: 'failed', event: { ticketId: ticket.id } } })) === 1);
    } finally {
      await broker.outage.end();
    }
    const res = await api('POST', `/webhooks/${sub.id}/recover`, { key, body: { since } });
    expect(res.status, res.text).toBe(202);
    await until(`ticket ${ticket!.id} at the ${type} destination`, async () => (await place.read()).some((m) => ticketIdOf(m) === ticket.id));
  }, 120_000);
});
