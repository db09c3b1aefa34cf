// RabbitMQ, AMQP 0-9-1 (docs/integrators/destinations/rabbitmq.md): a connection per subscription
// with one confirm channel; each delivery is a persistent message published to the exchange with
// the routing key `<prefix><event type>`, the signed body, the Standard Webhooks headers as
// message headers and the webhook-id as message id. It counts as delivered on the broker's
// confirm; `mandatory` makes an unroutable message come back instead of vanishing.
import { connect, type ChannelModel, type ConfirmChannel, type Message } from 'amqplib';
import { webhookHosts } from '../host-resolver.ts';
import { guardedLookup } from '../url-policy.ts';
import { BROKER_IDLE_MS, DELIVERY_TIMEOUT_MS, MAX_BROKER_CLIENTS } from '../constants.ts';
import { connectRefusal } from './addresses.ts';
import { ClientCache, clientKey } from './client-cache.ts';
import { allOf, since, type BrokerOutcome, type BrokerSender, type SendContext } from './sender.ts';
import type { BrokerDestination } from './settings.ts';

const SERVICE = 'RabbitMQ';
type Rabbit = Extract<BrokerDestination, { type: 'rabbitmq' }>;

interface Link {
  model: ChannelModel;
  channel?: Promise<ConfirmChannel>;
  /** Why the broker blocks publishers (a memory or disk alarm), while it does. */
  blocked?: string;
  /** Why the channel or the connection closed, from the broker's close frame. */
  closedBy?: { code?: number; message: string };
}

// The broker's reply codes that no retry changes: no such exchange, access refused (log-in or exchange).
const PERMANENT = new Set([403, 404]);

export function createRabbitMqSender(): BrokerSender<'rabbitmq'> {
  const clients = new ClientCache<Link>({ max: MAX_BROKER_CLIENTS, idleMs: BROKER_IDLE_MS, close: (l) => l.model.close().catch(() => undefined) });
  return {
    maxBatch: 100,
    async send(destination, messages, context) {
      const started = performance.now();
      const { settings } = destination;
      const refused = await connectRefusal('rabbitmq', settings, { allowPrivateTargets: context.allowPrivateTargets, workspaceId: context.workspaceId });
      if (refused) return allOf(messages, { verdict: 'retry', error: `${SERVICE}: ${refused}`, durationMs: since(started) });
      const key = clientKey(context.subscriptionId, settings, destination.credentials);
      let link: Link | undefined;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no confirm within ${DELIVERY_TIMEOUT_MS} ms`)), DELIVERY_TIMEOUT_MS);
      });
      try {
        return await Promise.race([
          deadline,
          clients.use(key, () => open(destination, context, () => void clients.drop(key)), async (l) => {
            link = l;
            if (l.blocked) return allOf(messages, { verdict: 'throttled', error: `${SERVICE} blocks publishers (${l.blocked})`, durationMs: since(started) });
            const channel = await (l.channel ??= openChannel(l));
            const returned = new Map<string, string>();
            const onReturn = (m: Message) => returned.set(String(m.properties.messageId), `${m.fields.routingKey}: ${(m.fields as { replyText?: string }).replyText ?? 'unroutable'}`);
            channel.on('return', onReturn);
            try {
              const confirms = messages.map((m) => {
                const routingKey = (settings.routingKeyPrefix ?? '') + m.eventType;
                const options = { mandatory: true, persistent: true, contentType: 'application/json', messageId: m.headers['webhook-id'], type: m.eventType, headers: m.headers };
                return new Promise<unknown>((resolve) => channel.publish(settings.exchange, routingKey, Buffer.from(m.body), options, (err) => resolve(err)));
              });
              const answers = await Promise.all(confirms);
              const durationMs = since(started);
              return messages.map((m, i): BrokerOutcome => {
                const unroutable = returned.get(m.headers['webhook-id']);
                // Unroutable: no queue is bound for its routing key now; one may be (a consumer's queue re-declared), so it waits for the next attempt.
                if (unroutable) return { verdict: 'retry', error: `${SERVICE} returned the message: no queue is bound for routing key ${unroutable}`, durationMs };
                if (!answers[i]) return { verdict: 'delivered', ack: `RabbitMQ confirmed on exchange ${settings.exchange} with routing key ${(settings.routingKeyPrefix ?? '') + m.eventType}`, durationMs };
                return l.closedBy ? outcomeOf(l.closedBy, durationMs) : { verdict: 'retry', error: `${SERVICE} did not confirm the message (nack)`, durationMs };
              });
            } finally {
              channel.off('return', onReturn);
            }
          }),
        ]);
      } catch (err) {
        void clients.drop(key);
        const blocked = link?.blocked;
        if (blocked) return allOf(messages, { verdict: 'throttled', error: `${SERVICE} blocks publishers (${blocked})`, durationMs: since(started) });
        return allOf(messages, outcomeOf(link?.closedBy ?? closeOf(err), since(started)));
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => clients.closeAll(),
  };
}

async function open({ settings, credentials }: Rabbit, context: SendContext, onClose: () => void): Promise<Link> {
  const url = new URL(settings.url);
  const lookup = guardedLookup({ allowPrivateTargets: context.allowPrivateTargets, resolve: (name) => webhookHosts.resolve(name, context.workspaceId) });
  const model = await connect(
    {
      protocol: url.protocol.slice(0, -1),
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port ? Number(url.port) : url.protocol === 'amqps:' ? 5671 : 5672,
      vhost: url.pathname.slice(1),
      username: credentials?.username ?? '',
      password: credentials?.password ?? '',
      heartbeat: 15,
    },
    { lookup, timeout: DELIVERY_TIMEOUT_MS },
  );
  const link: Link = { model };
  model.on('error', (err: Error) => (link.closedBy = closeOf(err)));
  model.on('close', onClose);
  model.on('blocked', (reason: string) => (link.blocked = reason || 'resource alarm'));
  model.on('unblocked', () => (link.blocked = undefined));
  return link;
}

/** A confirm channel; when the broker closes it (a channel error), the next batch opens another. */
async function openChannel(link: Link): Promise<ConfirmChannel> {
  const channel = await link.model.createConfirmChannel();
  link.closedBy = undefined;
  channel.on('error', (err: Error) => (link.closedBy = closeOf(err)));
  channel.on('close', () => (link.channel = undefined));
  return channel;
}

/** The reply code and words of a close or a failed connect, without the connection's credentials. */
function closeOf(err: unknown): { code?: number; message: string } {
  const e = err as { code?: unknown; message?: string };
  let message = String(e.message ?? err).slice(0, 300);
  // The client keeps no reply code when the broker closes instead of opening the vhost: it does not
  // exist, the user may not use it, or its connection limit is reached; the last passes, so it waits.
  if (message.startsWith('Expected ConnectionOpenOk; got <ConnectionClose')) message = 'the broker refused to open the virtual host (it does not exist, the user may not use it, or its connection limit is reached)';
  const replyCode = typeof e.code === 'number' ? e.code : Number(/\b(\d{3}) \(/.exec(message)?.[1]) || undefined;
  return { code: replyCode, message: typeof e.code === 'string' ? `${e.code}: ${message}` : message };
}

function outcomeOf(closed: { code?: number; message: string }, durationMs: number): BrokerOutcome {
  const verdict = closed.code && PERMANENT.has(closed.code) ? 'permanent' : 'retry';
  return { verdict, error: `${SERVICE}: ${closed.message}`, durationMs };
}
