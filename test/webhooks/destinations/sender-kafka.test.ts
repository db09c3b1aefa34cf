// The Kafka sender against a real broker (KRaft, test/support/brokers.ts): a batch becomes records
// keyed by ticket, read back by a consumer with their headers and exact bytes, one ticket in one
// partition in order; the acknowledgement names each record's partition and offset; a topic that
// does not exist is permanent (and not created by us); a plain connection to loopback is refused
// by the URL rule. (A stopped broker: destinations.test.ts.)
import { Admin, Consumer, stringDeserializers, type Message } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafkaSender } from '../../../src/webhooks/message/destinations/kafka.ts';
import { broker } from '../../support/brokers.ts';
import { uniqueId } from '../../support/temporal.ts';
import { loopback, outgoing, verifies } from './outgoing.ts';

type Record = Message<string, string, string, string>;
const sender = createKafkaSender();
afterAll(() => sender.close());

const destination = (brokers: string[], topic: string) => ({ type: 'kafka' as const, settings: { brokers, topic }, credentials: null });

async function createTopic(brokers: string[], partitions = 3): Promise<string> {
  const topic = uniqueId('tickets');
  const admin = new Admin({ clientId: 'test', bootstrapBrokers: brokers });
  try {
    await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
  } finally {
    await admin.close();
  }
  return topic;
}

async function readBack(brokers: string[], topic: string, count: number): Promise<Record[]> {
  const consumer = new Consumer({ clientId: 'test', groupId: uniqueId('group'), bootstrapBrokers: brokers, deserializers: stringDeserializers });
  const records: Record[] = [];
  try {
    const stream = await consumer.consume({ topics: [topic], mode: 'earliest' });
    for await (const record of stream) if (records.push(record) === count) break;
    await stream.close();
  } finally {
    await consumer.close();
  }
  return records;
}

describe('Kafka sender', () => {
  let brokers: string[];
  beforeAll(async () => {
    ({ brokers } = await broker('kafka'));
  });

  it('sends a batch as records keyed by ticket, one ticket in one partition in order, headers and bytes intact', async () => {
    const topic = await createTopic(brokers);
    const messages = outgoing(['tkt_a', 'tkt_b', 'tkt_c', 'tkt_a', 'tkt_b', 'tkt_a'].map((orderKey) => ({ orderKey })));
    const outcomes = await sender.send(destination(brokers, topic), messages, loopback());
    expect(outcomes.map((o) => o.verdict)).toEqual(messages.map(() => 'delivered'));

    const records = await readBack(brokers, topic, messages.length);
    const byId = new Map(records.map((r) => [r.headers.get('webhook-id'), r]));
    messages.forEach((m, i) => {
      const r = byId.get(m.headers['webhook-id'])!;
      expect(r.key).toBe(m.orderKey);
      expect(r.value).toBe(m.body);
      expect(Object.fromEntries(r.headers)).toEqual({ ...m.headers, 'content-type': 'application/json', 'webhook-event-type': m.eventType });
      expect(verifies(r.value, Object.fromEntries(r.headers))).toBe(true);
      expect(outcomes[i].ack).toBe(`Kafka partition ${r.partition} offset ${r.offset}`);
    });
    for (const key of ['tkt_a', 'tkt_b', 'tkt_c']) {
      const sent = messages.filter((m) => m.orderKey === key);
      const got = sent.map((m) => byId.get(m.headers['webhook-id'])!);
      expect(new Set(got.map((r) => r.partition)).size).toBe(1);
      // In a partition, offsets are the order a consumer reads: the order they were sent.
      expect(got.map((r) => r.offset)).toEqual([...got.map((r) => r.offset)].sort((a, b) => (a < b ? -1 : 1)));
    }
  });

  it('answers permanent for a topic that does not exist, and does not create it (the broker would)', async () => {
    const topic = uniqueId('missing');
    const outcomes = await sender.send(destination(brokers, topic), outgoing([{ orderKey: 'tkt_a' }, { orderKey: 'tkt_b' }]), loopback());
    expect(outcomes).toEqual([expect.objectContaining({ verdict: 'permanent', error: expect.stringMatching(/UNKNOWN_TOPIC_OR_PARTITION/) }), expect.objectContaining({ verdict: 'permanent' })]);
    const admin = new Admin({ clientId: 'test', bootstrapBrokers: brokers });
    try {
      expect(await admin.listTopics()).not.toContain(topic);
    } finally {
      await admin.close();
    }
  });

  it('refuses a plain connection to loopback by the URL rule, before connecting', async () => {
    const outcomes = await sender.send(destination(brokers, 'any'), outgoing([{ orderKey: 'tkt_a' }]), { ...loopback(), allowPrivateTargets: false });
    expect(outcomes).toEqual([expect.objectContaining({ verdict: 'retry', error: expect.stringMatching(/URL rule/) })]);
  });

  // A broker that stops and comes back (a retry, then delivered on a new producer): the end-to-end
  // test's outage (destinations.test.ts), on a Kafka of its own; one restarted Kafka per run is enough.
});
