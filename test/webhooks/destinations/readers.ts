// What a consumer of each broker destination receives, read back from the real broker: for each
// type, a fresh place to send to (a queue, a bus routed to a queue, a topic, an exchange bound to
// a queue, a stream), the REST `destination` that points a subscription at it, and a reader that
// collects the messages in the order the broker gives them.
import { CreateQueueCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { Consumer, stringDeserializers } from '@platformatic/kafka';
import amqp from 'amqplib';
import { connect as connectNats, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
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
  const consumer = new Consumer({ groupId: uniqueId('readers'), clientId: 'test-reader', bootstrapBrokers: a.brokers, deserializers: stringDeserializers });
  const got: Received[] = [];
  let stream: Awaited<ReturnType<typeof consumer.consume>> | undefined;
  return {
    destination: { type: 'kafka', brokers: a.brokers, topic },
    async read() {
      // The topic exists once the first record was produced (auto-created): subscribe then.
      if (!stream) {
        stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
        stream.on('data', (m) => got.push({ body: String(m.value), headers: Object.fromEntries([...m.headers].map(([k, v]) => [String(k), String(v)])), key: String(m.key) }));
      }
      return got;
    },
    close: async () => {
      await stream?.close();
      await consumer.close(true);
    },
  };
}

export async function rabbitmqPlace(a: BrokerAddresses['rabbitmq']): Promise<Place> {
  const u = new URL(a.url);
  const connection = await amqp.connect(a.url);
  const channel = await connection.createChannel();
  const exchange = uniqueId('exchange');
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue(uniqueId('queue'), { durable: true });
  await channel.bindQueue(queue, exchange, '#');
  const got: Received[] = [];
  return {
    destination: { type: 'rabbitmq', url: `amqp://${u.host}/`, exchange, routingKeyPrefix: 'tickets.', credentials: { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) } },
    async read() {
      for (let m = await channel.get(queue, { noAck: true }); m; m = await channel.get(queue, { noAck: true })) {
        const headers = Object.fromEntries(Object.entries(m.properties.headers ?? {}).map(([k, v]) => [k, String(v)]));
        got.push({ body: m.content.toString('utf8'), headers, key: m.fields.routingKey });
      }
      return got;
    },
    close: async () => {
      await connection.close();
    },
  };
}

export async function natsPlace(a: BrokerAddresses['nats']): Promise<Place> {
  const subject = uniqueId('events').replace(/[^A-Za-z0-9_-]/g, '_');
  const nc: NatsConnection = await connectNats({ servers: a.servers });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: subject, subjects: [`${subject}.>`] });
  const consumer = await jetstream(nc).consumers.get(subject);
  const got: Received[] = [];
  return {
    destination: { type: 'nats', servers: [a.servers], subject },
    async read() {
      const info = await jsm.streams.info(subject);
      const want = info.state.messages - got.length;
      if (want > 0) {
        const batch = await consumer.fetch({ max_messages: want, expires: 2000 });
        for await (const m of batch) {
          const headers: Record<string, string> = {};
          for (const [k, v] of m.headers ?? []) headers[k] = v[0];
          got.push({ body: m.string(), headers, key: m.subject });
          if (got.length >= info.state.messages) break;
        }
      }
      return got;
    },
    close: async () => {
      await nc.close();
    },
  };
}
