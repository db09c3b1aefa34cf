// What a consumer of each broker destination receives, read back from the real broker: for each
// type, a fresh place to send to (a queue, a bus routed to a queue, a topic, an exchange bound to
// a queue, a stream), the REST `destination` that points a subscription at it, and a reader that
// collects the messages in the order the broker gives them.
import { CreateQueueCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { Admin, Consumer, stringDeserializers } from '@platformatic/kafka';
import amqp from 'amqplib';
import { connect as connectNats, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { uniqueId } from '../../support/temporal.ts';
import type { BrokerAddresses } from '../../support/brokers.ts';

/** One message as its consumer sees it: the body, the Standard Webhooks headers, and what orders it. */
export interface Received {
  body: string;
  headers: Record<string, string>;
  /** Kafka's key, SQS FIFO's group, the routing key or subject. */
  key?: string;
}

export interface Place {
  /** The REST `destination` member. */
  destination: Record<string, unknown>;
  /** Everything received so far, in the broker's order. */
  read(): Promise<Received[]>;
  close(): Promise<void>;
}

type Aws = BrokerAddresses['aws'];
const awsConfig = (a: Aws) => ({ endpoint: a.endpoint, region: a.region, credentials: { accessKeyId: a.accessKeyId, secretAccessKey: a.secretAccessKey } });

async function sqsQueue(a: Aws, name: string, fifo: boolean) {
  const sqs = new SQSClient(awsConfig(a));
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, ...(fifo ? { Attributes: { FifoQueue: 'true' } } : {}) }));
  const got: Received[] = [];
  const read = async () => {
    for (;;) {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['All'] }));
      if (!Messages.length) return got;
      for (const m of Messages) {
        const headers = Object.fromEntries(Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue ?? '']));
        got.push({ body: m.Body ?? '', headers, key: m.Attributes?.MessageGroupId });
      }
      await sqs.send(new DeleteMessageBatchCommand({ QueueUrl, Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })) }));
    }
  };
  return { sqs, queueUrl: QueueUrl!, read };
}

export async function sqsPlace(a: Aws, { fifo = false } = {}): Promise<Place> {
  const q = await sqsQueue(a, `${uniqueId('dest').replace(/[^A-Za-z0-9_-]/g, '-')}${fifo ? '.fifo' : ''}`, fifo);
  return {
    destination: { type: 'sqs', queueUrl: q.queueUrl, region: a.region, credentials: { accessKeyId: a.accessKeyId, secretAccessKey: a.secretAccessKey } },
    read: q.read,
    close: async () => q.sqs.destroy(),
  };
}

/** A bus whose rule sends every entry to an SQS queue, where moto delivers EventBridge's targets. */
export async function eventbridgePlace(a: Aws): Promise<Place> {
  const name = uniqueId('bus').replace(/[^A-Za-z0-9_-]/g, '-');
  const events = new EventBridgeClient(awsConfig(a));
  await events.send(new CreateEventBusCommand({ Name: name }));
  const q = await sqsQueue(a, `${name}-q`, false);
  const { Attributes } = await q.sqs.send(new GetQueueAttributesCommand({ QueueUrl: q.queueUrl, AttributeNames: ['QueueArn'] }));
  await events.send(new PutRuleCommand({ Name: 'all', EventBusName: name, EventPattern: JSON.stringify({ source: ['ticketing.ticket', 'ticketing.webhook'] }) }));
  await events.send(new PutTargetsCommand({ Rule: 'all', EventBusName: name, Targets: [{ Id: 'q', Arn: Attributes!.QueueArn }] }));
  return {
    destination: { type: 'eventbridge', eventBusName: name, region: a.region, endpoint: a.endpoint, credentials: { accessKeyId: a.accessKeyId, secretAccessKey: a.secretAccessKey } },
    read: async () =>
      (await q.read()).map((m) => {
        // The SQS body is EventBridge's event; its detail carries the signed delivery.
        const e = JSON.parse(m.body) as { 'detail-type': string; source: string; detail: { webhook: { id: string; timestamp: string; signature: string; body: string } } };
        const w = e.detail.webhook;
        return { body: w.body, headers: { 'webhook-id': w.id, 'webhook-timestamp': w.timestamp, 'webhook-signature': w.signature, 'detail-type': e['detail-type'], source: e.source } };
      }),
    close: async () => {
      events.destroy();
      q.sqs.destroy();
    },
  };
}

export async function kafkaPlace(a: BrokerAddresses['kafka']): Promise<Place> {
  const topic = uniqueId('topic').replace(/[^A-Za-z0-9._-]/g, '-');
  const admin = new Admin({ clientId: 'test-reader', bootstrapBrokers: a.brokers });
  await admin.createTopics({ topics: [topic], partitions: 3, replicas: 1 });
  await admin.close();
  let got: Received[] = [];
  let reading: { consumer: Consumer<string, string, string, string>; stream: Awaited<ReturnType<Consumer<string, string, string, string>['consume']>> } | undefined;
  let broken = false;
  const stop = async () => {
    await Promise.resolve(reading?.stream.close()).catch(() => undefined);
    await Promise.resolve(reading?.consumer.close(true)).catch(() => undefined);
    reading = undefined;
  };
  return {
    destination: { type: 'kafka', brokers: a.brokers, topic },
    async read() {
      // A consumer that lost its broker (an outage) is replaced by a new one that reads again from the start.
      if (broken) {
        await stop();
        broken = false;
        got = [];
      }
      if (!reading) {
        const consumer = new Consumer({ groupId: uniqueId('readers'), clientId: 'test-reader', bootstrapBrokers: a.brokers, deserializers: stringDeserializers });
        const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
        stream.on('data', (m) => got.push({ body: String(m.value), headers: Object.fromEntries([...m.headers].map(([k, v]) => [String(k), String(v)])), key: String(m.key) }));
        stream.on('error', () => (broken = true));
        consumer.on('error', () => (broken = true));
        reading = { consumer, stream };
      }
      return got;
    },
    close: stop,
  };
}

/** A queue bound to the exchange; each read connects anew (a broker restarted meanwhile is no matter) and takes what waits. */
export async function rabbitmqPlace(a: BrokerAddresses['rabbitmq']): Promise<Place> {
  const u = new URL(a.url);
  const exchange = uniqueId('exchange');
  const queue = uniqueId('queue');
  const withChannel = async <T>(fn: (channel: amqp.Channel) => Promise<T>) => {
    const connection = await amqp.connect(a.url);
    try {
      return await fn(await connection.createChannel());
    } finally {
      await connection.close().catch(() => undefined);
    }
  };
  await withChannel(async (channel) => {
    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.assertQueue(queue, { durable: true });
    await channel.bindQueue(queue, exchange, '#');
  });
  const got: Received[] = [];
  return {
    destination: { type: 'rabbitmq', url: `amqp://${u.host}/`, exchange, routingKeyPrefix: 'tickets.', credentials: { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) } },
    read: () =>
      withChannel(async (channel) => {
        for (let m = await channel.get(queue, { noAck: true }); m; m = await channel.get(queue, { noAck: true })) {
          const headers = Object.fromEntries(Object.entries(m.properties.headers ?? {}).map(([k, v]) => [k, String(v)]));
          got.push({ body: m.content.toString('utf8'), headers, key: m.fields.routingKey });
        }
        return got;
      }),
    close: async () => undefined,
  };
}

/** A stream capturing the subject; each read connects anew and takes the stream's messages by sequence. */
export async function natsPlace(a: BrokerAddresses['nats']): Promise<Place> {
  const subject = uniqueId('events').replace(/[^A-Za-z0-9_-]/g, '_');
  const withManager = async <T>(fn: (jsm: Awaited<ReturnType<typeof jetstreamManager>>) => Promise<T>) => {
    const nc: NatsConnection = await connectNats({ servers: a.servers });
    try {
      return await fn(await jetstreamManager(nc));
    } finally {
      await nc.close().catch(() => undefined);
    }
  };
  await withManager((jsm) => jsm.streams.add({ name: subject, subjects: [`${subject}.>`] }));
  const got: Received[] = [];
  return {
    destination: { type: 'nats', servers: [a.servers], subject },
    read: () =>
      withManager(async (jsm) => {
        const last = (await jsm.streams.info(subject)).state.last_seq;
        for (let seq = got.length + 1; seq <= last; seq++) {
          const m = await jsm.streams.getMessage(subject, { seq });
          if (!m) continue;
          const headers: Record<string, string> = {};
          for (const [k, v] of m.header ?? []) headers[k] = v[0];
          got.push({ body: m.string(), headers, key: m.subject });
        }
        return got;
      }),
    close: async () => undefined,
  };
}
