// The GraphQL side of a subscription's destination (docs/integrators/destinations.md): the union
// `WebhookDestination` a subscription answers with (its settings, never its credentials), and the
// @oneOf input `WebhookDestinationInput` (one member, named by the type). REST sends
// `{type, ...members}`: its route turns that into the one-member form (`toGraphqlDestination`),
// and the resolvers turn it back (`fromGraphqlDestination`) for the service, which validates it
// with the same schemas as REST (../message/destinations/settings.ts).
import { builder } from '../../graphql/builder.ts';
import type { Subscription } from './webhook.repository.ts';
import { DESTINATION_TYPES, sqsRegion, type DestinationType } from '../message/destinations/settings.ts';
import { isBrokerType } from '../message/destinations/stored.ts';

type View = { type: DestinationType } & Record<string, unknown>;

/** A subscription's destination as the API shows it. */
export function destinationView(s: Pick<Subscription, 'url' | 'destinationType' | 'destination'>): View {
  if (!isBrokerType(s.destinationType)) return { type: 'https', url: s.url };
  const settings = (s.destination ?? {}) as Record<string, unknown>;
  return { type: s.destinationType, ...settings };
}

const DestinationTypeEnum = builder.enumType('WebhookDestinationType', {
  values: Object.fromEntries(DESTINATION_TYPES.map((t) => [t, {}])) as Record<DestinationType, object>,
});

const str = (d: View, k: string) => { const v = d[k]; return typeof v === 'string' ? v : null; };
const list = (d: View, k: string) => (Array.isArray(d[k]) ? (d[k] as string[]) : []);

const Https = builder.objectRef<View>('HttpsDestination').implement({
  description: 'An HTTPS POST to the subscription’s URL',
  fields: (t) => ({ type: t.field({ type: DestinationTypeEnum, resolve: (d) => d.type }), url: t.string({ resolve: (d) => str(d, 'url') ?? '' }) }),
});
const Sqs = builder.objectRef<View>('SqsDestination').implement({
  description: 'Amazon SQS: a message per delivery',
  fields: (t) => ({
    type: t.field({ type: DestinationTypeEnum, resolve: (d) => d.type }),
    queueUrl: t.string({ resolve: (d) => str(d, 'queueUrl') ?? '' }),
    region: t.string({ resolve: (d) => sqsRegion({ queueUrl: str(d, 'queueUrl') ?? '', region: str(d, 'region') ?? undefined }) ?? '' }),
    fifo: t.boolean({ description: 'A FIFO queue: MessageGroupId is `ticket-<id>` (the ticket’s id), MessageDeduplicationId the webhook-id', resolve: (d) => (str(d, 'queueUrl') ?? '').endsWith('.fifo') }),
  }),
});
const EventBridge = builder.objectRef<View>('EventBridgeDestination').implement({
  description: 'Amazon EventBridge: an entry per delivery',
  fields: (t) => ({
    type: t.field({ type: DestinationTypeEnum, resolve: (d) => d.type }),
    eventBusName: t.string({ resolve: (d) => str(d, 'eventBusName') ?? '' }),
    region: t.string({ resolve: (d) => str(d, 'region') ?? '' }),
    endpoint: t.string({ nullable: true, resolve: (d) => str(d, 'endpoint') }),
    sourcePrefix: t.string({ resolve: (d) => str(d, 'sourcePrefix') ?? 'ticketing' }),
  }),
});
const Kafka = builder.objectRef<View>('KafkaDestination').implement({
  description: 'Apache Kafka: a record per delivery, keyed by `ticket-<id>` (the ticket’s id)',
  fields: (t) => ({
    type: t.field({ type: DestinationTypeEnum, resolve: (d) => d.type }),
    brokers: t.stringList({ resolve: (d) => list(d, 'brokers') }),
    topic: t.string({ resolve: (d) => str(d, 'topic') ?? '' }),
    tls: t.boolean({ resolve: (d) => d.tls === true }),
    sasl: t.string({ nullable: true, resolve: (d) => str(d, 'sasl') }),
  }),
});
const RabbitMq = builder.objectRef<View>('RabbitMqDestination').implement({
  description: 'RabbitMQ (AMQP 0-9-1): a persistent message per delivery, with publisher confirms',
  fields: (t) => ({
    type: t.field({ type: DestinationTypeEnum, resolve: (d) => d.type }),
    url: t.string({ resolve: (d) => str(d, 'url') ?? '' }),
    exchange: t.string({ resolve: (d) => str(d, 'exchange') ?? '' }),
    routingKeyPrefix: t.string({ resolve: (d) => str(d, 'routingKeyPrefix') ?? '' }),
  }),
});
const Nats = builder.objectRef<View>('NatsDestination').implement({
  description: 'NATS JetStream: a publish per delivery, Nats-Msg-Id the webhook-id',
  fields: (t) => ({
    type: t.field({ type: DestinationTypeEnum, resolve: (d) => d.type }),
    servers: t.stringList({ resolve: (d) => list(d, 'servers') }),
    subject: t.string({ resolve: (d) => str(d, 'subject') ?? '' }),
    tls: t.boolean({ resolve: (d) => d.tls === true }),
  }),
});

const refs = { https: Https, sqs: Sqs, eventbridge: EventBridge, kafka: Kafka, rabbitmq: RabbitMq, nats: Nats } as const;

export const WebhookDestination = builder.unionType('WebhookDestination', {
  description: 'Where a subscription’s deliveries go; credentials are never shown',
  types: Object.values(refs),
  resolveType: (d) => refs[d.type],
  // The OpenAPI document's discriminator (src/api/openapi-schemas.ts): which member each `type` is.
  extensions: { discriminator: { propertyName: 'type', mapping: Object.fromEntries(Object.entries(refs).map(([type, ref]) => [type, ref.name])) } },
});

// ---- input ----

const AwsCredentials = builder.inputType('AwsCredentialsInput', {
  description: 'An IAM access key; write-only',
  fields: (t) => ({ accessKeyId: t.string({ required: true }), secretAccessKey: t.string({ required: true }), sessionToken: t.string() }),
});
const UserPassword = builder.inputType('UserPasswordInput', {
  description: 'A user name and password; write-only',
  fields: (t) => ({ username: t.string({ required: true }), password: t.string({ required: true }) }),
});
const NatsCredentials = builder.inputType('NatsCredentialsInput', {
  description: 'Either a token, or a user name and password; write-only',
  fields: (t) => ({ token: t.string(), username: t.string(), password: t.string() }),
});

const inputs = {
  sqs: builder.inputType('SqsDestinationInput', {
    fields: (t) => ({ queueUrl: t.string({ required: true }), region: t.string(), credentials: t.field({ type: AwsCredentials, required: true }) }),
  }),
  eventbridge: builder.inputType('EventBridgeDestinationInput', {
    fields: (t) => ({
      eventBusName: t.string({ required: true }),
      region: t.string({ required: true }),
      endpoint: t.string(),
      sourcePrefix: t.string(),
      credentials: t.field({ type: AwsCredentials, required: true }),
    }),
  }),
  kafka: builder.inputType('KafkaDestinationInput', {
    fields: (t) => ({
      brokers: t.stringList({ required: true }),
      topic: t.string({ required: true }),
      tls: t.boolean(),
      sasl: t.string({ description: 'plain, scram-sha-256 or scram-sha-512' }),
      credentials: t.field({ type: UserPassword }),
    }),
  }),
  rabbitmq: builder.inputType('RabbitMqDestinationInput', {
    fields: (t) => ({
      url: t.string({ required: true }),
      exchange: t.string({ required: true }),
      routingKeyPrefix: t.string(),
      credentials: t.field({ type: UserPassword, required: true }),
    }),
  }),
  nats: builder.inputType('NatsDestinationInput', {
    fields: (t) => ({ servers: t.stringList({ required: true }), subject: t.string({ required: true }), tls: t.boolean(), credentials: t.field({ type: NatsCredentials }) }),
  }),
};

export const WebhookDestinationInput = builder.inputType('WebhookDestinationInput', {
  description: 'A broker destination: exactly one member, named by its type',
  isOneOf: true,
  fields: (t) => ({
    sqs: t.field({ type: inputs.sqs }),
    eventbridge: t.field({ type: inputs.eventbridge }),
    kafka: t.field({ type: inputs.kafka }),
    rabbitmq: t.field({ type: inputs.rabbitmq }),
    nats: t.field({ type: inputs.nats }),
  }),
});

/** Drops absent members (GraphQL gives them as null) so the service's strict schemas see what was sent. */
function present(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(present);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, present(v)]));
}

/** `{sqs: {...}}` → `{type: 'sqs', ...}` for the service. */
export function fromGraphqlDestination(input: unknown): unknown {
  if (!input || typeof input !== 'object') return input;
  const entries = Object.entries(input as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
  if (entries.length !== 1) return input;
  const [type, members] = entries[0];
  return { type, ...(present(members) as object) };
}

/** `{type: 'sqs', ...}` (REST's body) → `{sqs: {...}}` (GraphQL's @oneOf input). A body the schema refused never gets here. */
export function toGraphqlDestination(body: unknown): unknown {
  if (!body || typeof body !== 'object' || !('type' in body)) return body;
  const { type, ...members } = body as { type: string };
  return { [type]: members };
}
