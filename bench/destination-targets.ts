// Where bench/destinations.ts sends its subscriptions and how it sees what arrived: an HTTPS path
// on the benchmark's receiver (bench/webhook-case-receivers.ts: the arrival's own time), or a fresh
// place on a real broker (test/webhooks/destinations/readers.ts, the consumers the tests read
// with: a queue, a bus routed to a queue, a topic, an exchange bound to a queue, a stream), whose
// messages count as arrived when the benchmark reads them back.
import type { BrokerAddresses } from '../scripts/throwaway-brokers.ts';
import type { BrokerType } from '../src/webhooks/message/destinations/settings.ts';
import { eventbridgePlace, kafkaPlace, natsPlace, rabbitmqPlace, sqsPlace, type Place } from '../test/webhooks/destinations/readers.ts';
import type { CaseReceiver } from './webhook-case-receivers.ts';
import type { Arrival } from './webhook-receivers.ts';

export type TargetType = 'https' | BrokerType;
const TARGET_TYPES: readonly TargetType[] = ['https', 'sqs', 'eventbridge', 'kafka', 'rabbitmq', 'nats'];
export const isTargetType = (s: string): s is TargetType => (TARGET_TYPES as readonly string[]).includes(s);

export interface Target {
  type: TargetType;
  /** The members of POST /webhooks that point a subscription here: `url`, or `destination`. */
  body: Record<string, unknown>;
  /** Per webhook-id (the event's id): first arrival (HTTPS) or first read (a broker), occurredAt, times seen. */
  arrivals: Map<string, Arrival>;
  /** Reads what the broker has for it now (nothing to do for HTTPS, whose receiver records as it goes). */
  poll(): Promise<void>;
  close(): Promise<void>;
}

/** Every target not closed yet, for a run that ends early: its consumers go before their brokers do. */
const open = new Set<Target>();
export async function closeTargets(): Promise<void> {
  await Promise.all([...open].map((t) => t.close().catch(() => undefined)));
}

/** The brokers a run has, by the type of destination each serves. */
export type BrokerSet = { [N in keyof BrokerAddresses]?: BrokerAddresses[N] };

/** A new target of `type`: `/https/<name>` on the receiver, or a fresh place on the broker of that type. */
export async function newTarget(type: TargetType, name: string, receiver: CaseReceiver, brokers: BrokerSet): Promise<Target> {
  if (type === 'https') {
    const path = `/${type}/${name}`;
    return { type, body: { url: receiver.origin + path }, arrivals: receiver.arrivals(path), poll: async () => undefined, close: async () => undefined };
  }
  const need = <T>(b: T | undefined, name: string): T => {
    if (!b) throw new Error(`no ${name} broker in this run`);
    return b;
  };
  const place = await (type === 'sqs'
    ? sqsPlace(need(brokers.aws, 'aws'))
    : type === 'eventbridge'
      ? eventbridgePlace(need(brokers.aws, 'aws'))
      : type === 'kafka'
        ? kafkaPlace(need(brokers.kafka, 'kafka'))
        : type === 'rabbitmq'
          ? rabbitmqPlace(need(brokers.rabbitmq, 'rabbitmq'))
          : natsPlace(need(brokers.nats, 'nats')));
  const target = brokerTarget(type, place);
  open.add(target);
  return target;
}

function brokerTarget(type: BrokerType, place: Place): Target {
  const arrivals = new Map<string, Arrival>();
  let seen = 0;
  return {
    type,
    body: { destination: place.destination },
    arrivals,
    async poll() {
      const got = await place.read();
      const now = Date.now();
      for (const m of got.slice(seen)) {
        const id = m.headers['webhook-id'] ?? '';
        const a = arrivals.get(id);
        if (a) a.count += 1;
        else arrivals.set(id, { firstAt: now, occurredAt: Date.parse((JSON.parse(m.body) as { occurredAt: string }).occurredAt), count: 1 });
      }
      seen = got.length;
    },
    close() {
      open.delete(this);
      return place.close();
    },
  };
}

/**
 * Polls `target` every `everyMs` until `stop()` says so; a poll that fails (the broker frozen, a
 * connection lost) is tried again at the next turn. Each target has a loop of its own, so that a
 * broker that hangs holds up only its own reading.
 */
export function pollLoop(target: Target, everyMs: number): { stop(): Promise<void>; errors(): number } {
  let running = true;
  let errors = 0;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      await target.poll().catch(() => void (errors += 1));
      await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (Date.now() - started))));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
    errors: () => errors,
  };
}
