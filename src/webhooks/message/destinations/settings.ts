// A subscription's destination (docs/integrators/destinations.md): where its deliveries go. `https`
// (the default) is the subscription's `url`; the broker types carry their settings in the column
// `destination` and their credentials, sealed, in `destinationCredentials` (secret-box.ts). The
// schemas here are the one definition of each type's members: the REST body and the OpenAPI
// document's `oneOf` come from them, the service validates GraphQL input with them, and the
// senders read the stored settings with the same types.
import { z } from 'zod';
import { text } from '../../../validation/text.ts';

export const BROKER_TYPES = ['sqs', 'eventbridge', 'kafka', 'rabbitmq', 'nats'] as const;
export type BrokerType = (typeof BROKER_TYPES)[number];
export const DESTINATION_TYPES = ['https', ...BROKER_TYPES] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** `host:port`, a name or an IP literal (IPv6 in brackets). */
const HOST_PORT = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]{2,45}\]):\d{1,5}$/;
const hostPort = z.string().max(300).regex(HOST_PORT, 'must be host:port');
const hostList = (what: string) => z.array(hostPort).min(1).max(10).describe(what);
const AWS_REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;
const secretText = (max: number) => text({ min: 1, max });
const absoluteUrl = (schemes: string[], note: string) =>
  text({ min: 1, max: 2048, trim: true })
    .refine((raw) => {
      try {
        const u = new URL(raw);
        return schemes.includes(u.protocol) && u.hostname !== '' && !u.username && !u.password && !u.hash;
      } catch {
        return false;
      }
    }, `must be an absolute ${schemes.map((s) => s.replace(':', '')).join(' or ')} URL without user info`)
    .describe(note);

const awsCredentials = z
  .strictObject({
    accessKeyId: secretText(128),
    secretAccessKey: secretText(256),
    sessionToken: secretText(4096).optional(),
  })
  .describe('An IAM access key (write-only: stored sealed, never returned)')
  .meta({ id: 'AwsCredentialsInput' });
const userPassword = z
  .strictObject({ username: secretText(256), password: secretText(1024) })
  .describe('User name and password (write-only: stored sealed, never returned)')
  .meta({ id: 'UserPasswordInput' });

const TLS_NOTE = 'Connect with TLS. Required outside development (WEBHOOK_ALLOW_PRIVATE_TARGETS), where only public addresses are allowed.';

const sqsDestination = z
  .strictObject({
    type: z.literal('sqs'),
    queueUrl: absoluteUrl(['https:', 'http:'], 'The queue URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`); a name ending in `.fifo` is a FIFO queue. http only in development.'),
    region: z.string().regex(AWS_REGION, 'must be an AWS region such as eu-west-1').optional().describe('The queue’s region; absent: read from the queue URL'),
    credentials: awsCredentials,
  })
  .describe('Amazon SQS: one message per delivery (SendMessageBatch, up to 10), the body the event, the Standard Webhooks headers as message attributes. On a FIFO queue MessageGroupId is `ticket-<id>` (the ticket’s id; the event’s own id for events that are not about a ticket) and MessageDeduplicationId the webhook-id.')
  .meta({ id: 'SqsDestinationInput', examples: [
    { type: 'sqs', queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/ticket-events.fifo', credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: '<secret access key>' } },
  ] });

const eventbridgeDestination = z
  .strictObject({
    type: z.literal('eventbridge'),
    eventBusName: text({ min: 1, max: 1600 }).regex(/^[A-Za-z0-9._\-/:]+$/, 'must be an event bus name or ARN').describe('The event bus, by name or ARN'),
    region: z.string().regex(AWS_REGION, 'must be an AWS region such as eu-west-1').describe('The bus’s region'),
    endpoint: absoluteUrl(['https:', 'http:'], 'Another endpoint than the region’s (a VPC endpoint); http only in development').optional(),
    sourcePrefix: z.string().regex(/^(?!aws\.)[A-Za-z0-9._-]{1,200}$/, 'must be letters, digits, dots, dashes or underscores, not starting with aws.').optional()
      .describe('Each entry’s Source is this prefix and the event type’s first word (`ticketing.ticket`); default `ticketing`'),
    credentials: awsCredentials,
  })
  .describe('Amazon EventBridge: one entry per delivery (PutEvents, up to 10); Source from the event type’s first word, DetailType the event type, Detail the signed delivery.')
  .meta({ id: 'EventBridgeDestinationInput', examples: [
    { type: 'eventbridge', eventBusName: 'ticketing', region: 'eu-west-1', sourcePrefix: 'acme.ticketing', credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: '<secret access key>' } },
  ] });

const kafkaDestination = z
  .strictObject({
    type: z.literal('kafka'),
    brokers: hostList('Bootstrap brokers, host:port'),
    topic: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'must be a Kafka topic name').describe('The topic; the message key is `ticket-<id>` (the ticket’s id; the event’s own id for events that are not about a ticket), so one ticket’s events stay in one partition, in order'),
    tls: z.boolean().optional().describe(TLS_NOTE),
    sasl: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).optional().describe('SASL mechanism; needs `credentials`'),
    credentials: userPassword.optional(),
  })
  .describe('Apache Kafka: an idempotent producer, one record per delivery (a produce request per batch), acks from all in-sync replicas; the Standard Webhooks headers as record headers.')
  .meta({ id: 'KafkaDestinationInput', examples: [
    { type: 'kafka', brokers: ['b-1.kafka.example.com:9096', 'b-2.kafka.example.com:9096'], topic: 'ticket-events', tls: true, sasl: 'scram-sha-512', credentials: { username: 'ticketing', password: '<password>' } },
  ] });

const rabbitmqDestination = z
  .strictObject({
    type: z.literal('rabbitmq'),
    url: absoluteUrl(['amqps:', 'amqp:'], 'The broker, `amqps://host[:port][/vhost]` without user info (amqp only in development)'),
    exchange: text({ min: 1, max: 255 }).describe('The exchange to publish to (it must exist)'),
    routingKeyPrefix: text({ max: 200 }).optional().describe('The routing key is this prefix and the event type (`tickets.ticket.created`); default none'),
    credentials: userPassword,
  })
  .describe('RabbitMQ (AMQP 0-9-1): persistent messages on a channel with publisher confirms, the Standard Webhooks headers as message headers; routing key from the event type.')
  .meta({ id: 'RabbitMqDestinationInput', examples: [
    { type: 'rabbitmq', url: 'amqps://rabbitmq.example.com/ticketing', exchange: 'ticket-events', routingKeyPrefix: 'tickets.', credentials: { username: 'ticketing', password: '<password>' } },
  ] });

const natsDestination = z
  .strictObject({
    type: z.literal('nats'),
    servers: hostList('NATS servers, host:port'),
    subject: z.string().regex(/^[A-Za-z0-9_-]{1,100}(?:\.[A-Za-z0-9_-]{1,100}){0,15}$/, 'must be a NATS subject without wildcards').describe('Messages go to `<subject>.<event type>`; a JetStream stream must capture them (`<subject>.>`)'),
    tls: z.boolean().optional().describe(TLS_NOTE),
    credentials: z
      .union([userPassword, z.strictObject({ token: secretText(1024) }).describe('A token (write-only)').meta({ id: 'TokenInput' })])
      .optional(),
  })
  .describe('NATS JetStream: a publish per delivery, acknowledged by the stream; `Nats-Msg-Id` is the webhook-id, so the stream drops a retried duplicate.')
  .meta({ id: 'NatsDestinationInput', examples: [{ type: 'nats', servers: ['nats.example.com:4222'], subject: 'ticketing', tls: true, credentials: { token: '<token>' } }] });

export const brokerDestinationInput = z.discriminatedUnion('type', [sqsDestination, eventbridgeDestination, kafkaDestination, rabbitmqDestination, natsDestination]);
export type BrokerDestinationInput = z.infer<typeof brokerDestinationInput>;
type Credentials<T> = T extends { credentials?: infer C } ? Exclude<C, undefined> : never;
export type DestinationCredentials = Credentials<BrokerDestinationInput>;

/** The stored settings of a broker destination: the input less its credentials (and type, a column of its own). */
export type StoredSettings<T extends BrokerType = BrokerType> = Omit<Extract<BrokerDestinationInput, { type: T }>, 'credentials' | 'type'>;

/** A broker destination as a sender sees it: its settings and its opened credentials. */
export type BrokerDestination = { [T in BrokerType]: { type: T; settings: StoredSettings<T>; credentials: Credentials<Extract<BrokerDestinationInput, { type: T }>> | null } }[BrokerType];

/** Splits an input into what is stored in clear and what is sealed. */
export function splitDestination(input: BrokerDestinationInput): { type: BrokerType; settings: Record<string, unknown>; credentials: DestinationCredentials | null } {
  const { type, credentials, ...settings } = input;
  return { type, settings, credentials: credentials ?? null };
}

/** The SQS queue's region: the one given, else the one in a queue URL of AWS's form. */
export function sqsRegion(settings: { queueUrl: string; region?: string }): string | null {
  if (settings.region) return settings.region;
  const m = /^sqs[.-]([a-z]{2}(?:-[a-z]+)+-\d{1,2})\./.exec(new URL(settings.queueUrl).hostname);
  return m ? m[1] : null;
}

/**
 * The destination in URI form, without credentials: the subscription's `url` for a broker type
 * (what lists, logs and the audit show of where deliveries go).
 */
export function destinationAddress(input: BrokerDestinationInput | { type: BrokerType; settings: Record<string, unknown> }): string {
  const s = ('settings' in input ? input.settings : input) as Record<string, unknown>;
  switch (input.type) {
    case 'sqs':
      return String(s.queueUrl);
    case 'eventbridge':
      return `eventbridge://${String(s.region)}/${encodeURIComponent(String(s.eventBusName))}`;
    case 'kafka':
      return `kafka${s.tls ? '+ssl' : ''}://${(s.brokers as string[]).join(',')}/${String(s.topic)}`;
    case 'rabbitmq':
      return `${String(s.url).replace(/\/$/, '')}#exchange=${encodeURIComponent(String(s.exchange))}`;
    case 'nats':
      return `nats${s.tls ? '+tls' : ''}://${(s.servers as string[]).join(',')}/${String(s.subject)}`;
  }
}
