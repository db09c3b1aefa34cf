// The brokers of the webhook destinations are real and reachable (test/support/brokers.ts): one
// round trip each with the client the destination uses, the properties the destinations rely on
// (SQS FIFO de-duplication, EventBridge rules delivering to SQS, Kafka's idempotent producer with
// key and headers, RabbitMQ publisher confirms and durable queues, JetStream's Nats-Msg-Id
// de-duplication), and an outage: a NATS server of the file's own stopped and started again with
// its data, or frozen and thawed (RabbitMQ's and Kafka's: their senders' tests).
import { CreateEventBusCommand, EventBridgeClient, PutEventsCommand, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect as natsConnect, headers as natsHeaders } from '@nats-io/transport-node';
import { Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { broker, brokerNames, ownBroker } from '../../support/brokers.ts';
import { uniqueId } from '../../support/temporal.ts';

const body = JSON.stringify({ type: 'ticket.created', data: { id: 'tkt_1' } });

// All four at once rather than one by one as the tests reach them: the file waits for the slowest.
beforeAll(() => Promise.all(brokerNames.map((name) => broker(name))));

describe('Amazon SQS and EventBridge (moto)', () => {
  let sqs: SQSClient;
  let eventBridge: EventBridgeClient;
  beforeAll(async () => {
    const { endpoint, region, accessKeyId, secretAccessKey } = await broker('aws');
    const options = { endpoint, region, credentials: { accessKeyId, secretAccessKey } };
    sqs = new SQSClient(options);
    eventBridge = new EventBridgeClient(options);
  });
  afterAll(() => {
    sqs?.destroy();
    eventBridge?.destroy();
  });

  const receive = async (QueueUrl: string) =>
    (await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['All'] }))).Messages ?? [];

  it('a standard queue takes a batch with message attributes and gives it back', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueId('standard') }));
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: ['a', 'b'].map((id) => ({ Id: id, MessageBody: body, MessageAttributes: { 'webhook-id': { DataType: 'String', StringValue: `msg_${id}` } } })),
      }),
    );
    expect(sent.Successful?.map((s) => s.Id).sort()).toEqual(['a', 'b']);
    const messages = await receive(QueueUrl!);
    expect(messages.map((m) => m.MessageAttributes?.['webhook-id']?.StringValue).sort()).toEqual(['msg_a', 'msg_b']);
    expect(messages.every((m) => m.Body === body)).toBe(true);
  });

  it('a FIFO queue keeps a group in order and drops a repeated MessageDeduplicationId', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `${uniqueId('fifo')}.fifo`, Attributes: { FifoQueue: 'true' } }));
    const entry = (id: string, dedup: string) => ({ Id: id, MessageBody: `${id}:${body}`, MessageGroupId: 'tkt_1', MessageDeduplicationId: dedup });
    await sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: [entry('first', 'msg_1'), entry('second', 'msg_2')] }));
    // A retried attempt: the same webhook-id as deduplication id, accepted and dropped by SQS itself.
    const retried = await sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: [entry('again', 'msg_1')] }));
    expect(retried.Successful).toHaveLength(1);
    const messages = await receive(QueueUrl!);
    expect(messages.map((m) => m.Body?.split(':')[0])).toEqual(['first', 'second']);
    expect(messages[0].Attributes?.MessageGroupId).toBe('tkt_1');
  });

  it('EventBridge delivers a put event to an SQS queue that a rule on the bus targets', async () => {
    const bus = uniqueId('bus');
    await eventBridge.send(new CreateEventBusCommand({ Name: bus }));
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: uniqueId('bus-target') }));
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    await eventBridge.send(new PutRuleCommand({ Name: 'tickets', EventBusName: bus, EventPattern: JSON.stringify({ source: ['ticketing.test'] }) }));
    await eventBridge.send(new PutTargetsCommand({ Rule: 'tickets', EventBusName: bus, Targets: [{ Id: 'queue', Arn: Attributes!.QueueArn }] }));
    const put = await eventBridge.send(
      new PutEventsCommand({ Entries: [{ EventBusName: bus, Source: 'ticketing.test', DetailType: 'ticket.created', Detail: body }] }),
    );
    expect(put.FailedEntryCount).toBe(0);
    // moto sends the whole event, as EventBridge does, as the queue message's body.
    const [message] = await receive(QueueUrl!);
    const event = JSON.parse(message.Body!) as { id: string; source: string; 'detail-type': string; detail: unknown };
    expect(event).toMatchObject({ id: put.Entries![0].EventId, source: 'ticketing.test', 'detail-type': 'ticket.created', detail: JSON.parse(body) });
  });
});

describe('Apache Kafka (KRaft)', () => {
  it('an idempotent producer sends a keyed message with headers, and a consumer reads it back', async () => {
    const { brokers } = await broker('kafka');
    const topic = uniqueId('tickets');
    // autocreateTopics: the metadata request asks the broker to create a topic it does not know
    // (auto.create.topics.enable, three partitions); without it the producer waits for one.
    const producer = new Producer({ clientId: 'test', bootstrapBrokers: brokers, serializers: stringSerializers, idempotent: true, acks: -1, autocreateTopics: true });
    try {
      const sent = await producer.send({ messages: [{ topic, key: 'tkt_1', value: body, headers: { 'webhook-id': 'msg_1' } }] });
      expect(sent.offsets).toEqual([expect.objectContaining({ topic, offset: 0n })]);
    } finally {
      await producer.close();
    }
    const consumer = new Consumer({ clientId: 'test', groupId: uniqueId('group'), bootstrapBrokers: brokers, deserializers: stringDeserializers });
    try {
      const stream = await consumer.consume({ topics: [topic], mode: 'earliest' });
      let received: { key: string; value: string; headers: Map<string, string> } | undefined;
      for await (const message of stream) {
        received = message;
        break;
      }
      await stream.close();
      expect(received?.key).toBe('tkt_1');
      expect(received?.value).toBe(body);
      expect(received?.headers.get('webhook-id')).toBe('msg_1');
    } finally {
      await consumer.close();
    }
  });
});

/** An exchange, a durable queue bound to it by `ticket.#`, on a confirm channel. */
async function rabbitQueue(url: string) {
  const names = { exchange: uniqueId('tickets'), queue: uniqueId('integrator') };
  const connection = await amqp.connect(url);
  const channel = await connection.createConfirmChannel();
  await channel.assertExchange(names.exchange, 'topic', { durable: true });
  await channel.assertQueue(names.queue, { durable: true });
  await channel.bindQueue(names.queue, names.exchange, 'ticket.#');
  return {
    connection,
    async publish(messageId: string) {
      channel.publish(names.exchange, 'ticket.created', Buffer.from(body), { persistent: true, messageId, headers: { 'webhook-id': messageId } });
      await channel.waitForConfirms();
    },
    async take() {
      const message = await channel.get(names.queue, { noAck: true });
      return message ? (message.properties.headers?.['webhook-id'] as string) : undefined;
    },
  };
}

describe('RabbitMQ', () => {
  it('a publish on a confirm channel is confirmed, routed by the exchange and read back with its headers', async () => {
    const { url } = await broker('rabbitmq');
    const queue = await rabbitQueue(url);
    try {
      await queue.publish('msg_1');
      expect(await queue.take()).toBe('msg_1');
      expect(await queue.take()).toBeUndefined();
    } finally {
      await queue.connection.close();
    }
  });
  // A RabbitMQ of our own stopped, started and frozen: sender-rabbitmq.test.ts (the sender's outage).
});

describe('NATS JetStream', () => {
  const natsHeadersOf = (id: string) => {
    const h = natsHeaders();
    h.set('Nats-Msg-Id', id);
    return h;
  };

  it('drops a second publish with the same Nats-Msg-Id, and a consumer reads the one message', async () => {
    const { servers } = await broker('nats');
    const connection = await natsConnect({ servers });
    try {
      const stream = uniqueId('tickets');
      await (await jetstreamManager(connection)).streams.add({ name: stream, subjects: [`${stream}.>`] });
      const js = jetstream(connection);
      const first = await js.publish(`${stream}.ticket.created`, body, { headers: natsHeadersOf('msg_1') });
      const again = await js.publish(`${stream}.ticket.created`, body, { headers: natsHeadersOf('msg_1') });
      expect([first.duplicate, again.duplicate, again.seq]).toEqual([false, true, first.seq]);
      const consumer = await js.consumers.get(stream);
      const message = await consumer.next();
      expect(message?.string()).toBe(body);
      expect(message?.headers?.get('Nats-Msg-Id')).toBe('msg_1');
      expect((await consumer.info()).num_pending).toBe(0);
    } finally {
      await connection.close();
    }
  });

  it('a broker of our own keeps its stream across a stop and start, and does not answer while frozen', async () => {
    const own = await ownBroker('nats');
    const { servers } = own.address;
    type Connection = Awaited<ReturnType<typeof natsConnect>>;
    const session = async <T>(work: (js: ReturnType<typeof jetstream>, connection: Connection) => Promise<T>) => {
      const connection = await natsConnect({ servers, reconnect: false });
      try {
        return await work(jetstream(connection), connection);
      } finally {
        await connection.close();
      }
    };
    try {
      await session(async (js, connection) => {
        await (await jetstreamManager(connection)).streams.add({ name: 'outage', subjects: ['outage.>'] });
        await js.publish('outage.ticket', 'before', { headers: natsHeadersOf('msg_before') });
      });
      await own.stop();
      await expect(natsConnect({ servers, reconnect: false })).rejects.toThrow();
      await own.start();
      await session(async (js) => {
        const after = await js.publish('outage.ticket', 'after', { headers: natsHeadersOf('msg_after') });
        expect(after.seq).toBe(2);
        const consumer = await js.consumers.get('outage');
        expect((await consumer.next())?.string()).toBe('before');
      });
      // Frozen: the connection stays open, and the publish gets no acknowledgement.
      await session(async (js) => {
        await own.freeze();
        try {
          await expect(js.publish('outage.ticket', 'frozen', { timeout: 500 })).rejects.toThrow();
        } finally {
          own.thaw();
        }
      });
      await session(async (js) => expect((await js.publish('outage.ticket', 'thawed')).seq).toBeGreaterThan(2));
    } finally {
      await own.close();
    }
  });
});
