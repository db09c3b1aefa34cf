// Apache Kafka (docs/integrators/destinations/kafka.md): an idempotent producer (acks from all
// in-sync replicas) per subscription, one record per delivery and one produce call per batch. The
// record key is the ticket id and its partition is chosen here (murmur2, as Java's client does),
// so one ticket's events stay in one partition, in order; the value is the signed body and the
// Standard Webhooks headers travel as record headers.
import tls from 'node:tls';
import { murmur2, Producer, stringSerializers, type MessageToProduce } from '@platformatic/kafka';
import { webhookHosts } from '../host-resolver.ts';
import { guardedLookup } from '../url-policy.ts';
import { BROKER_IDLE_MS, MAX_BROKER_CLIENTS } from '../constants.ts';
import { advertisedRefusal, connectRefusal } from './addresses.ts';
import { ClientCache, clientKey } from './client-cache.ts';
import { allOf, since, withinTimeLimit, type BrokerOutcome, type BrokerSender, type SendContext } from './sender.ts';
import type { BrokerDestination } from './settings.ts';

const SERVICE = 'Kafka';
type KafkaProducer = Producer<string, string, string, string>;
type Kafka = Extract<BrokerDestination, { type: 'kafka' }>;

// Never accepted as configured: the integrator must change the topic, the ACLs or the credentials.
// A topic that does not exist is one of them: the client has already asked for fresh metadata
// once (a leader change or a topic still being created reads so only briefly), and a retry would
// wait for someone to create it, as an SQS queue that does not exist would.
const PERMANENT = new Set([
  'TOPIC_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'SASL_AUTHENTICATION_FAILED',
  'UNSUPPORTED_SASL_MECHANISM',
  'ILLEGAL_SASL_STATE',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'INVALID_TOPIC_EXCEPTION',
]);
const THROTTLED = new Set(['THROTTLING_QUOTA_EXCEEDED']);

export function createKafkaSender(): BrokerSender<'kafka'> {
  const clients = new ClientCache<KafkaProducer>({ max: MAX_BROKER_CLIENTS, idleMs: BROKER_IDLE_MS, close: (p) => p.close() });
  return {
    maxBatch: 100,
    async send(destination, messages, context) {
      const started = performance.now();
      const { settings } = destination;
      const refused = await connectRefusal('kafka', settings, { allowPrivateTargets: context.allowPrivateTargets, workspaceId: context.workspaceId });
      if (refused) return allOf(messages, { verdict: 'retry', error: `${SERVICE}: ${refused}`, durationMs: since(started) });
      const key = clientKey(context.subscriptionId, settings, destination.credentials);
      try {
        const sent = clients.use(key, async () => producerOf(destination, context), async (producer) => {
          const metadata = await producer.metadata({ topics: [settings.topic] });
          const advertised = advertisedRefusal(metadata.brokers.values(), { allowPrivateTargets: context.allowPrivateTargets });
          if (advertised) throw new AdvertisedRefusal(advertised);
          const topic = metadata.topics.get(settings.topic);
          const count = topic?.partitionsCount ?? 1;
          const records: MessageToProduce<string, string, string, string>[] = messages.map((m) => ({
            topic: settings.topic,
            key: m.orderKey,
            value: m.body,
            partition: (murmur2(Buffer.from(m.orderKey), false) & 0x7fffffff) % count,
            headers: { ...m.headers, 'content-type': 'application/json', 'webhook-event-type': m.eventType },
          }));
          return { records, result: await producer.send({ messages: records }) };
        });
        // The client retries a little itself (a leader moved); the whole send still ends within the time limit.
        const { records, result } = await withinTimeLimit(sent, context.timeoutMs);
        const durationMs = since(started);
        const base = new Map((result.offsets ?? []).map((o) => [o.partition, o.offset]));
        const seen = new Map<number, bigint>();
        return records.map((r) => {
          const partition = r.partition!;
          const nth = seen.get(partition) ?? 0n;
          seen.set(partition, nth + 1n);
          const offset = base.get(partition);
          return { verdict: 'delivered', ack: `Kafka partition ${partition} offset ${offset === undefined ? '?' : String(offset + nth)}`, durationMs } satisfies BrokerOutcome;
        });
      } catch (err) {
        // A producer that failed may hold a dead connection or sequence numbers the broker no longer expects.
        void clients.drop(key);
        return allOf(messages, outcomeOf(err, since(started)));
      }
    },
    close: () => clients.closeAll(),
  };
}

/** The cluster's metadata names a broker the URL rule refuses: no record is sent. */
class AdvertisedRefusal extends Error {}

function producerOf({ settings, credentials }: Kafka, context: SendContext): KafkaProducer {
  // The URL rule again on the addresses the sockets use (TLS only: the library opens plain sockets
  // without a lookup of ours, and plain connections are allowed only where the rule is lifted): a
  // name through the guarded lookup; an address literal (which Node never looks up), should one
  // reach a socket between two reads of the metadata, fails the TLS handshake before a byte of
  // Kafka's protocol (or a SASL password) is sent.
  const policy = { allowPrivateTargets: context.allowPrivateTargets };
  const lookup = guardedLookup({ ...policy, resolve: (name) => webhookHosts.resolve(name, context.workspaceId) });
  const checkServerIdentity = (hostname: string, cert: tls.PeerCertificate) => {
    const refused = advertisedRefusal([{ host: hostname }], policy);
    return refused ? new Error(refused) : tls.checkServerIdentity(hostname, cert);
  };
  return new Producer({
    clientId: 'ticketing-webhooks',
    bootstrapBrokers: settings.brokers,
    serializers: stringSerializers,
    idempotent: true,
    connectTimeout: context.timeoutMs / 2,
    timeout: context.timeoutMs / 2,
    retries: 2,
    retryDelay: 250,
    ...(settings.tls ? { tls: { lookup, checkServerIdentity }, tlsServerName: true } : {}),
    ...(settings.sasl && credentials
      ? { sasl: { mechanism: ({ plain: 'PLAIN', 'scram-sha-256': 'SCRAM-SHA-256', 'scram-sha-512': 'SCRAM-SHA-512' } as const)[settings.sasl], username: credentials.username, password: credentials.password } }
      : {}),
  });
}

interface KafkaError {
  code?: string;
  apiId?: string;
  serverErrorMessage?: string | null;
  message?: string;
  errors?: unknown[];
  cause?: unknown;
}

/** Every error in the client's tree of errors (MultipleErrors nest the attempts; causes nest the socket's). */
function* errorsIn(err: unknown, depth = 0): Generator<KafkaError> {
  if (!err || typeof err !== 'object' || depth > 6) return;
  const e = err as KafkaError;
  // The client answers UNKNOWN_TOPIC_OR_PARTITION in metadata (after its retries) with an error of its own.
  if (e.code === 'PLT_KFK_USER' && e.message?.startsWith('Unknown topic ')) yield { apiId: 'UNKNOWN_TOPIC_OR_PARTITION', serverErrorMessage: 'the topic does not exist' };
  yield e;
  for (const inner of e.errors ?? []) yield* errorsIn(inner, depth + 1);
  if (e.cause) yield* errorsIn(e.cause, depth + 1);
}

/** What a failed send means, in the broker's own words (its error code), never a credential. */
function outcomeOf(err: unknown, durationMs: number): BrokerOutcome {
  if (err instanceof AdvertisedRefusal) return { verdict: 'retry', error: `${SERVICE}: ${err.message}`, durationMs };
  const all = [...errorsIn(err)];
  const words = (e: KafkaError | undefined) => (e ? `${e.apiId ?? e.code ?? 'error'}${e.serverErrorMessage ? ` (${e.serverErrorMessage.slice(0, 200)})` : ''}` : '');
  const permanent = all.find((e) => e.apiId && PERMANENT.has(e.apiId)) ?? all.find((e) => e.code === 'PLT_KFK_AUTHENTICATION');
  if (permanent) return { verdict: 'permanent', error: `${SERVICE}: ${permanent.apiId ? words(permanent) : 'authentication failed'}`, durationMs };
  const throttled = all.find((e) => e.apiId && THROTTLED.has(e.apiId));
  if (throttled) return { verdict: 'throttled', error: `${SERVICE}: ${words(throttled)}`, durationMs };
  const coded = all.find((e) => e.apiId);
  const last = all.findLast((e) => e.message);
  return { verdict: 'retry', error: `${SERVICE}: ${coded ? words(coded) : (last?.message ?? 'error').slice(0, 300)}`, durationMs };
}
