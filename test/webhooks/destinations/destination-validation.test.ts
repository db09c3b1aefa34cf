// Saving a broker destination (no broker needed: saving never connects): the members each type
// needs, the URL rule on broker addresses (public only, encrypted) with private targets not
// allowed (the default), credentials sealed and never answered, REST and GraphQL alike.
import { beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { advertisedRefusal } from '../../../src/webhooks/message/destinations/addresses.ts';
import { openSecret } from '../../../src/webhooks/message/secret-box.ts';
import { secretRepository } from '../../../src/webhooks/subscriptions/secret.repository.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { expect422, gql } from '../../tickets/helpers.ts';

type Ws = Awaited<ReturnType<typeof createTestWorkspace>>;
let ws: Ws;
let key: string;

beforeAll(async () => {
  ws = await createTestWorkspace();
  key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
});

// A public address written as an IP literal: no DNS needed, and nothing connects to it.
const PUBLIC = '52.119.160.10';
const AWS_KEY = { accessKeyId: 'AKIAEXAMPLEEXAMPLE12', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY' };
const sqs = (over: Record<string, unknown> = {}) => ({ type: 'sqs', queueUrl: `https://${PUBLIC}/123456789012/orders.fifo`, region: 'eu-west-1', credentials: AWS_KEY, ...over });
const create = (body: unknown) => api('POST', '/webhooks', { key, body });

describe('saving a broker destination', () => {
  it('stores the settings, seals the credentials and never answers them', async () => {
    const res = await create({ destination: sqs(), events: ['ticket.created'] });
    expect(res.status, res.text).toBe(201);
    expect(res.body.destination).toEqual({ type: 'sqs', queueUrl: `https://${PUBLIC}/123456789012/orders.fifo`, region: 'eu-west-1', fifo: true });
    expect(res.body.url).toBe(`https://${PUBLIC}/123456789012/orders.fifo`);
    expect(res.text).not.toContain(AWS_KEY.secretAccessKey);
    expect(res.text).not.toContain(AWS_KEY.accessKeyId);
    const row = await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.destinationCredentials).toMatch(/^enc2\./);
    expect(row.destinationCredentials).not.toContain(AWS_KEY.secretAccessKey);
    expect(JSON.parse(openSecret(row.destinationCredentials!, { subscriptionId: row.id, column: 'destinationCredentials' }))).toEqual(AWS_KEY);
    // Bound to its row and column: the same value does not open as another subscription's.
    expect(() => openSecret(row.destinationCredentials!, { subscriptionId: 'wh_00000000000000000000000000', column: 'destinationCredentials' })).toThrow();
    const list = await api('GET', '/webhooks', { key });
    expect(list.text).not.toContain(AWS_KEY.secretAccessKey);
    // Re-encryption covers them with the signing secrets.
    await secretRepository.reencryptAll();
    const after = await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: row.id } });
    expect(JSON.parse(openSecret(after.destinationCredentials!, { subscriptionId: row.id, column: 'destinationCredentials' }))).toEqual(AWS_KEY);
  });

  it('applies the URL rule to broker addresses: no private address, encrypted connections only', async () => {
    expect422(await create({ destination: sqs({ queueUrl: 'https://127.0.0.1/1/q' }), events: ['ticket.created'] }), ['/destination/queueUrl']);
    expect422(await create({ destination: sqs({ queueUrl: `http://${PUBLIC}/1/q` }), events: ['ticket.created'] }), ['/destination/queueUrl']);
    expect422(await create({ destination: { type: 'kafka', brokers: [`${PUBLIC}:9092`, '10.0.0.5:9092'], topic: 't', tls: true }, events: ['ticket.created'] }), ['/destination/brokers/1']);
    expect422(await create({ destination: { type: 'nats', servers: [`${PUBLIC}:4222`], subject: 'tickets' }, events: ['ticket.created'] }), ['/destination/servers/0']);
    const amqp = await create({ destination: { type: 'rabbitmq', url: `amqp://${PUBLIC}/`, exchange: 'x', credentials: { username: 'u', password: 'p' } }, events: ['ticket.created'] });
    expect422(amqp, ['/destination/url']);
    expect(amqp.text).toContain('encrypted');
  });

  it('holds every member to the text rule, naming the member', async () => {
    for (const [member, destination] of [
      ['queueUrl', sqs({ queueUrl: `https://${PUBLIC}/1/a\u0000b` })],
      ['credentials/secretAccessKey', sqs({ credentials: { ...AWS_KEY, secretAccessKey: 'a\u0001b' } })],
      ['exchange', { type: 'rabbitmq', url: `amqps://${PUBLIC}/`, exchange: 'x\ud800', credentials: { username: 'u', password: 'p' } }],
    ] as const) {
      const res = await create({ destination, events: ['ticket.created'] });
      expect422(res, [`/destination/${member}`]);
    }
  });

  it('refuses what a type does not take, and url with destination', async () => {
    expect422(await create({ url: 'https://example.com/hook', destination: sqs(), events: ['ticket.created'] }), ['/destination']);
    expect422(await create({ events: ['ticket.created'] }), ['/url']);
    expect((await create({ destination: { type: 'smtp', host: PUBLIC }, events: ['ticket.created'] })).status).toBe(422);
    expect((await create({ destination: sqs({ credentials: undefined }), events: ['ticket.created'] })).status).toBe(422);
    expect((await create({ destination: sqs({ topic: 'x' }), events: ['ticket.created'] })).status).toBe(422);
    expect422(await create({ destination: { type: 'kafka', brokers: [`${PUBLIC}:9093`], topic: 't', tls: true, credentials: { username: 'u', password: 'p' } }, events: ['ticket.created'] }), ['/destination/credentials']);
  });

  it('changes an https subscription into a broker one and back', async () => {
    const created = await create({ url: `https://${PUBLIC}/hook`, events: ['ticket.created'] });
    expect(created.body.destination).toEqual({ type: 'https', url: `https://${PUBLIC}/hook` });
    const kafka = { type: 'kafka', brokers: [`${PUBLIC}:9093`], topic: 'tickets', tls: true, sasl: 'scram-sha-512', credentials: { username: 'svc', password: 's3cret-pass' } };
    const changed = await api('PATCH', `/webhooks/${created.body.id}`, { key, body: { destination: kafka } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.destination).toEqual({ type: 'kafka', brokers: [`${PUBLIC}:9093`], topic: 'tickets', tls: true, sasl: 'scram-sha-512' });
    expect(changed.body.url).toBe(`kafka+ssl://${PUBLIC}:9093/tickets`);
    expect(changed.text).not.toContain('s3cret-pass');
    const back = await api('PATCH', `/webhooks/${created.body.id}`, { key, body: { url: `https://${PUBLIC}/hook2` } });
    expect(back.body.destination).toEqual({ type: 'https', url: `https://${PUBLIC}/hook2` });
    const row = await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row).toMatchObject({ destinationType: 'https', destination: null, destinationCredentials: null });
  });

  it('takes a destination through GraphQL as a one-member input', async () => {
    const mutation = `mutation($input: CreateWebhookSubscriptionInput!) {
      createWebhookSubscription(input: $input) { id destination { __typename ... on NatsDestination { type servers subject tls } } }
    }`;
    const nats = { servers: [`${PUBLIC}:4222`], subject: 'tickets', tls: true, credentials: { token: 'nats-token-1' } };
    const ok = await gql(key, mutation, { input: { events: ['ticket.created'], destination: { nats } } });
    expect(ok.errors).toBeUndefined();
    expect(ok.data.createWebhookSubscription.destination).toEqual({ __typename: 'NatsDestination', type: 'nats', servers: [`${PUBLIC}:4222`], subject: 'tickets', tls: true });
    const two = await gql(key, mutation, { input: { events: ['ticket.created'], destination: { nats, kafka: { brokers: [`${PUBLIC}:9093`], topic: 't' } } } });
    expect(two.errors?.length).toBeGreaterThan(0);
  });
});

describe("the brokers a Kafka cluster advertises (the sender's check of its metadata)", () => {
  it('refuses an address literal the URL rule refuses, leaves names to the guarded lookup, and is lifted with private targets', () => {
    const rule = { allowPrivateTargets: false };
    expect(advertisedRefusal([{ host: PUBLIC, port: 9093 }], rule)).toBeNull();
    expect(advertisedRefusal([{ host: PUBLIC, port: 9093 }, { host: '10.0.0.5', port: 9093 }], rule)).toMatch(/10\.0\.0\.5:9093, which the URL rule refuses \(a private address\)/);
    expect(advertisedRefusal([{ host: '127.0.0.1', port: 9092 }], rule)).toMatch(/loopback/);
    expect(advertisedRefusal([{ host: '::ffff:169.254.169.254', port: 9092 }], rule)).not.toBeNull();
    expect(advertisedRefusal([{ host: 'kafka-1.internal.example', port: 9093 }], rule)).toBeNull();
    expect(advertisedRefusal([{ host: '10.0.0.5', port: 9093 }], { allowPrivateTargets: true })).toBeNull();
  });
});
