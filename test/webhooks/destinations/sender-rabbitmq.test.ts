// The RabbitMQ sender against a real broker (test/support/brokers.ts): a batch becomes persistent
// messages routed by event type, read back in order with their properties, headers and exact
// bytes; an unroutable one comes back and waits (retry); a missing exchange and a wrong password
// are permanent, and the channel the broker closed is replaced; a stopped
// broker is a retry, and the same sender delivers again once it is back.
import amqp, { type ConfirmChannel } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRabbitMqSender } from '../../../src/webhooks/message/destinations/rabbitmq.ts';
import { broker, ownBroker } from '../../support/brokers.ts';
import { uniqueId } from '../../support/temporal.ts';
import { loopback, outgoing, verifies } from './outgoing.ts';

const sender = createRabbitMqSender();
afterAll(() => sender.close());

/** The broker's URL without its user info, and the user info as the destination's credentials. */
function split(url: string) {
  const u = new URL(url);
  const credentials = { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
  u.username = '';
  u.password = '';
  return { url: u.toString().replace(/\/$/, ''), credentials };
}

/** A topic exchange and a queue bound to `hooks.ticket.#`, as an integrator sets them up. */
async function exchangeWithQueue(channel: ConfirmChannel) {
  const exchange = uniqueId('tickets');
  const { queue } = await channel.assertQueue(uniqueId('integrator'), { exclusive: true });
  await channel.assertExchange(exchange, 'topic', { durable: false, autoDelete: false });
  await channel.bindQueue(queue, exchange, 'hooks.ticket.#');
  return { exchange, queue };
}

describe('RabbitMQ sender', () => {
  let admin: amqp.ChannelModel;
  let channel: ConfirmChannel;
  let target: ReturnType<typeof split>;
  beforeAll(async () => {
    const { url } = await broker('rabbitmq');
    target = split(url);
    admin = await amqp.connect(url);
    channel = await admin.createConfirmChannel();
  });
  afterAll(() => admin?.close());

  const destination = (exchange: string, credentials = target.credentials, url = target.url) => ({
    type: 'rabbitmq' as const,
    settings: { url, exchange, routingKeyPrefix: 'hooks.' },
    credentials,
  });

  it('publishes a batch as persistent messages routed by event type, read back in order with headers and bytes intact', async () => {
    const { exchange, queue } = await exchangeWithQueue(channel);
    const messages = outgoing([{ orderKey: 'tkt_a', eventType: 'ticket.created' }, { orderKey: 'tkt_a' }, { orderKey: 'tkt_b', eventType: 'ticket.deleted' }]);
    const outcomes = await sender.send(destination(exchange), messages, loopback());
    expect(outcomes.map((o) => o.verdict)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(outcomes[0].ack).toBe(`RabbitMQ confirmed on exchange ${exchange} with routing key hooks.ticket.created`);
    for (const m of messages) {
      const got = await channel.get(queue, { noAck: true });
      expect(got).not.toBe(false);
      if (!got) continue;
      expect(got.fields.routingKey).toBe(`hooks.${m.eventType}`);
      expect(got.content.equals(Buffer.from(m.body))).toBe(true);
      expect(got.properties).toMatchObject({ messageId: m.headers['webhook-id'], contentType: 'application/json', deliveryMode: 2, type: m.eventType, headers: m.headers });
      expect(verifies(got.content.toString(), got.properties.headers as Record<string, string>)).toBe(true);
    }
    expect(await channel.get(queue)).toBe(false);
  });

  it('answers retry for a message no queue is bound for, and delivered for the rest of the batch', async () => {
    const { exchange, queue } = await exchangeWithQueue(channel);
    const messages = outgoing([{ orderKey: 'tkt_a' }, { orderKey: 'tkt_a', eventType: 'board.updated' }, { orderKey: 'tkt_a' }]);
    const outcomes = await sender.send(destination(exchange), messages, loopback());
    expect(outcomes.map((o) => o.verdict)).toEqual(['delivered', 'retry', 'delivered']);
    expect(outcomes[1].error).toMatch(/no queue is bound for routing key hooks\.board\.updated/);
    const ids = [(await channel.get(queue, { noAck: true })) || null, (await channel.get(queue, { noAck: true })) || null].map((g) => g?.properties.messageId as unknown);
    expect(ids).toEqual([messages[0].headers['webhook-id'], messages[2].headers['webhook-id']]);
  });

  it('answers permanent for an exchange that is gone, and delivers again once it is back (a new channel)', async () => {
    const { exchange, queue } = await exchangeWithQueue(channel);
    const context = loopback();
    expect((await sender.send(destination(exchange), outgoing([{ orderKey: 'tkt_a' }]), context)).map((o) => o.verdict)).toEqual(['delivered']);
    await channel.deleteExchange(exchange);
    const gone = await sender.send(destination(exchange), outgoing([{ orderKey: 'tkt_a' }, { orderKey: 'tkt_a' }]), context);
    expect(gone).toEqual([expect.objectContaining({ verdict: 'permanent', error: expect.stringMatching(/404 \(NOT-FOUND\).*no exchange/) }), expect.objectContaining({ verdict: 'permanent' })]);
    await channel.assertExchange(exchange, 'topic', { durable: false });
    await channel.bindQueue(queue, exchange, 'hooks.ticket.#');
    expect((await sender.send(destination(exchange), outgoing([{ orderKey: 'tkt_a' }]), context)).map((o) => o.verdict)).toEqual(['delivered']);
  });

  it('answers permanent for a wrong password, without the password in its words', async () => {
    const outcomes = await sender.send(destination('amq.topic', { username: target.credentials.username, password: 'wrong-Pa55word' }), outgoing([{ orderKey: 'tkt_a' }]), loopback());
    expect(outcomes).toEqual([expect.objectContaining({ verdict: 'permanent', error: expect.stringMatching(/ACCESS-REFUSED/) })]);
    expect(outcomes[0].error).not.toContain('wrong-Pa55word');
  });

  it('answers retry while its broker is stopped, then delivers on a new connection once it is back', async () => {
    const own = await ownBroker('rabbitmq');
    try {
      const { url, credentials } = split(own.address.url);
      const ownAdmin = await amqp.connect(own.address.url);
      const ownChannel = await ownAdmin.createConfirmChannel();
      await ownChannel.assertExchange('tickets', 'topic', { durable: true });
      await ownChannel.assertQueue('integrator', { durable: true });
      await ownChannel.bindQueue('integrator', 'tickets', 'hooks.ticket.#');
      await ownAdmin.close();
      const context = loopback();
      const send = (orderKeys: string[]) => sender.send(destination('tickets', credentials, url), outgoing(orderKeys.map((orderKey) => ({ orderKey }))), context);
      expect((await send(['tkt_a'])).map((o) => o.verdict)).toEqual(['delivered']);
      await own.stop();
      expect((await send(['tkt_a', 'tkt_a'])).map((o) => o.verdict)).toEqual(['retry', 'retry']);
      await own.start();
      expect((await send(['tkt_a'])).map((o) => o.verdict)).toEqual(['delivered']);
      const after = await amqp.connect(own.address.url);
      try {
        expect((await (await after.createChannel()).checkQueue('integrator')).messageCount).toBe(2);
      } finally {
        await after.close();
      }
    } finally {
      await own.close();
    }
  }, 180_000);
});
