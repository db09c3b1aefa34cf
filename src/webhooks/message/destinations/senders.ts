// The broker senders of one worker, each loaded on first use (a worker that sends only HTTPS never
// loads a broker's client library).
import type { BrokerDestination, BrokerType } from './settings.ts';
import type { BrokerOutcome, BrokerSender, OutgoingMessage, SendContext } from './sender.ts';

const loaders: Record<BrokerType, () => Promise<BrokerSender>> = {
  sqs: async () => (await import('./sqs.ts')).createSqsSender() as BrokerSender,
  eventbridge: async () => (await import('./eventbridge.ts')).createEventBridgeSender() as BrokerSender,
  kafka: async () => (await import('./kafka.ts')).createKafkaSender() as BrokerSender,
  rabbitmq: async () => (await import('./rabbitmq.ts')).createRabbitMqSender() as BrokerSender,
  nats: async () => (await import('./nats.ts')).createNatsSender() as BrokerSender,
};

export interface BrokerSenders {
  /** The sender of a type (loaded now if it was not). */
  of(type: BrokerType): Promise<BrokerSender>;
  send(destination: BrokerDestination, messages: OutgoingMessage[], context: SendContext): Promise<BrokerOutcome[]>;
  close(): Promise<void>;
}

export function createBrokerSenders(): BrokerSenders {
  const loaded = new Map<BrokerType, Promise<BrokerSender>>();
  const of = (type: BrokerType) => {
    let sender = loaded.get(type);
    if (!sender) {
      sender = loaders[type]();
      loaded.set(type, sender);
      sender.catch(() => loaded.delete(type));
    }
    return sender;
  };
  return {
    of,
    async send(destination, messages, context) {
      return (await of(destination.type)).send(destination as never, messages, context);
    },
    async close() {
      await Promise.all([...loaded.values()].map(async (s) => (await s).close().catch(() => undefined)));
      loaded.clear();
    },
  };
}
