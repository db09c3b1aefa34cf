// Where a subscription's deliveries go, in the webhook form: an HTTPS endpoint (the default) or a
// queue or bus (docs/integrators/destinations.md), with the fields each type needs. Credentials are
// write-only: never shown, typed again with any change of the destination; unchanged settings and
// empty credentials leave the saved destination as it is.
import { useState } from 'react';
import { Checkbox, FieldError, Input, Label, Text, TextField } from 'react-aria-components';
import type { WebhookDestination } from '../api/operations.ts';
import type { WebhookDestinationInput } from '../gql/graphql.ts';
import { ChoiceSelect } from '../components/ChoiceSelect.tsx';
import { formText } from '../form.ts';

export type DestinationKind = WebhookDestination['type'];
type BrokerKind = Exclude<DestinationKind, 'https'>;

export const DESTINATION_CHOICES: { id: DestinationKind; name: string }[] = [
  { id: 'https', name: 'HTTPS endpoint' },
  { id: 'sqs', name: 'Amazon SQS queue' },
  { id: 'eventbridge', name: 'Amazon EventBridge event bus' },
  { id: 'kafka', name: 'Apache Kafka topic' },
  { id: 'rabbitmq', name: 'RabbitMQ exchange' },
  { id: 'nats', name: 'NATS JetStream subject' },
];

const TYPE_NAMES: Record<DestinationKind, string> = {
  https: 'HTTPS',
  sqs: 'Amazon SQS',
  eventbridge: 'Amazon EventBridge',
  kafka: 'Apache Kafka',
  rabbitmq: 'RabbitMQ',
  nats: 'NATS JetStream',
};
export const destinationTypeName = (kind: DestinationKind) => TYPE_NAMES[kind];

/** The labels of the destination's fields, by form name (the form's error list names them). */
export const DESTINATION_LABELS: Record<string, string> = {
  url: 'Endpoint URL',
  destination: 'Destination',
  'destination.queueUrl': 'Queue URL',
  'destination.region': 'Region',
  'destination.eventBusName': 'Event bus',
  'destination.endpoint': 'Endpoint',
  'destination.sourcePrefix': 'Source prefix',
  'destination.brokers': 'Bootstrap brokers',
  'destination.topic': 'Topic',
  'destination.sasl': 'SASL mechanism',
  'destination.url': 'Broker URL',
  'destination.exchange': 'Exchange',
  'destination.routingKeyPrefix': 'Routing key prefix',
  'destination.servers': 'Servers',
  'destination.subject': 'Subject',
  'destination.credentials': 'Credentials',
  'destination.credentials.accessKeyId': 'Access key ID',
  'destination.credentials.secretAccessKey': 'Secret access key',
  'destination.credentials.sessionToken': 'Session token',
  'destination.credentials.username': 'User name',
  'destination.credentials.password': 'Password',
  'destination.credentials.token': 'Token',
};

/** The facts a page shows of a destination, label and value (never credentials). */
export function destinationFacts(d: WebhookDestination): [label: string, value: string][] {
  switch (d.__typename) {
    case 'HttpsDestination':
      return [['Endpoint URL', d.url]];
    case 'SqsDestination':
      return [['Queue URL', d.queueUrl], ['Region', d.region], ['Queue kind', d.fifo ? 'FIFO (in order per ticket)' : 'Standard (no order)']];
    case 'EventBridgeDestination':
      return [['Event bus', d.eventBusName], ['Region', d.region], ...(d.endpoint ? [['Endpoint', d.endpoint] as [string, string]] : []), ['Source prefix', d.sourcePrefix]];
    case 'KafkaDestination':
      return [['Bootstrap brokers', d.brokers.join(', ')], ['Topic', d.topic], ['TLS', d.tls ? 'Yes' : 'No'], ['SASL', d.sasl ?? 'None']];
    case 'RabbitMqDestination':
      return [['Broker URL', d.url], ['Exchange', d.exchange], ['Routing key prefix', d.routingKeyPrefix || 'None']];
    case 'NatsDestination':
      return [['Servers', d.servers.join(', ')], ['Subject', `${d.subject}.<event type>`], ['TLS', d.tls ? 'Yes' : 'No']];
  }
}

const SASL_CHOICES = [
  { id: 'none', name: 'None' },
  { id: 'plain', name: 'PLAIN' },
  { id: 'scram-sha-256', name: 'SCRAM-SHA-256' },
  { id: 'scram-sha-512', name: 'SCRAM-SHA-512' },
];
const NATS_AUTH_CHOICES = [
  { id: 'none', name: 'None' },
  { id: 'token', name: 'Token' },
  { id: 'password', name: 'User name and password' },
];

type Errors = Record<string, string>;

function Field({ name, label, errors, description, secret, ...rest }: {
  name: string;
  label: string;
  errors: Errors;
  description?: React.ReactNode;
  secret?: boolean;
  defaultValue?: string;
  placeholder?: string;
  isRequired?: boolean;
  autoFocus?: boolean;
}) {
  const error = errors[name] ?? (name.startsWith('destination.credentials.') ? errors['destination.credentials'] : undefined);
  return (
    <TextField name={name} isInvalid={!!error} type={secret ? 'password' : 'text'} isRequired={rest.isRequired} defaultValue={rest.defaultValue} className="field" autoFocus={rest.autoFocus}>
      <Label>{label}</Label>
      <Input placeholder={rest.placeholder} autoComplete={secret ? 'new-password' : 'off'} spellCheck={false} />
      {description && <Text slot="description">{description}</Text>}
      <FieldError>{error}</FieldError>
    </TextField>
  );
}

function TlsCheckbox({ defaultSelected }: { defaultSelected: boolean }) {
  return (
    <Checkbox name="destination.tls" value="on" defaultSelected={defaultSelected} className="checkbox checkbox-standalone">
      <span className="checkbox-box" aria-hidden="true" />
      <span>Connect with TLS (required unless the service runs in development)</span>
    </Checkbox>
  );
}

/**
 * The fields of the chosen type, filled from `current` when it is of that type. `editing`: the
 * credentials may stay empty while the rest is unchanged.
 */
export function DestinationFields({ kind, current, errors, editing }: { kind: DestinationKind; current?: WebhookDestination; errors: Errors; editing: boolean }) {
  const same = current?.type === kind ? current : undefined;
  const [sasl, setSasl] = useState(same?.__typename === 'KafkaDestination' ? (same.sasl ?? 'none') : 'none');
  const [natsAuth, setNatsAuth] = useState('none');
  const credentialsNote = editing && same
    ? 'Credentials are never shown. Leave them empty to keep the saved ones; any change to this destination needs them typed again.'
    : 'Stored sealed and never shown again, not even here.';
  const secret = (name: string, label: string, isRequired = true) => (
    <Field key={name} name={`destination.credentials.${name}`} label={label} errors={errors} secret isRequired={isRequired && !(editing && same)} />
  );

  switch (kind) {
    case 'https':
      return (
        <Field
          name="url"
          label="Endpoint URL"
          errors={errors}
          isRequired
          autoFocus
          defaultValue={same?.__typename === 'HttpsDestination' ? same.url : undefined}
          placeholder="https://example.com/webhooks/tickets"
          description="An https address on port 443 or 8443 that the internet can reach (no private or local addresses)."
        />
      );
    case 'sqs': {
      const d = same?.__typename === 'SqsDestination' ? same : undefined;
      return (
        <fieldset className="fieldset">
          <legend>Amazon SQS</legend>
          <Field name="destination.queueUrl" label="Queue URL" errors={errors} isRequired defaultValue={d?.queueUrl} placeholder="https://sqs.eu-west-1.amazonaws.com/123456789012/ticket-events.fifo"
            description="A queue whose name ends in .fifo keeps each ticket’s events in order; a standard queue does not." />
          <Field name="destination.region" label="Region (optional)" errors={errors} defaultValue={d?.region} placeholder="eu-west-1" description="Read from the queue URL when empty." />
          <p className="hint">{credentialsNote} The key needs sqs:SendMessage on this queue.</p>
          {secret('accessKeyId', 'Access key ID')}
          {secret('secretAccessKey', 'Secret access key')}
          {secret('sessionToken', 'Session token (optional)', false)}
        </fieldset>
      );
    }
    case 'eventbridge': {
      const d = same?.__typename === 'EventBridgeDestination' ? same : undefined;
      return (
        <fieldset className="fieldset">
          <legend>Amazon EventBridge</legend>
          <Field name="destination.eventBusName" label="Event bus" errors={errors} isRequired defaultValue={d?.eventBusName} placeholder="ticketing" description="Its name or ARN." />
          <Field name="destination.region" label="Region" errors={errors} isRequired defaultValue={d?.region} placeholder="eu-west-1" />
          <Field name="destination.endpoint" label="Endpoint (optional)" errors={errors} defaultValue={d?.endpoint ?? undefined} description="Another endpoint than the region’s, such as a VPC endpoint." />
          <Field name="destination.sourcePrefix" label="Source prefix (optional)" errors={errors} defaultValue={d?.sourcePrefix} placeholder="ticketing"
            description="Each event’s Source is this prefix and the event type’s first word (ticketing.ticket); its detail-type is the event type." />
          <p className="hint">{credentialsNote} The key needs events:PutEvents on this bus.</p>
          {secret('accessKeyId', 'Access key ID')}
          {secret('secretAccessKey', 'Secret access key')}
          {secret('sessionToken', 'Session token (optional)', false)}
        </fieldset>
      );
    }
    case 'kafka': {
      const d = same?.__typename === 'KafkaDestination' ? same : undefined;
      return (
        <fieldset className="fieldset">
          <legend>Apache Kafka</legend>
          <Field name="destination.brokers" label="Bootstrap brokers" errors={errors} isRequired defaultValue={d?.brokers.join(', ')} placeholder="b-1.kafka.example.com:9096, b-2.kafka.example.com:9096"
            description="host:port, separated by commas." />
          <Field name="destination.topic" label="Topic" errors={errors} isRequired defaultValue={d?.topic} placeholder="ticket-events"
            description="Each record’s key is the ticket, so one ticket’s events stay in one partition, in order." />
          <TlsCheckbox defaultSelected={d ? d.tls : true} />
          <ChoiceSelect label="SASL mechanism" name="destination.sasl" value={sasl} onChange={setSasl} choices={SASL_CHOICES} />
          {sasl !== 'none' && (
            <>
              <p className="hint">{credentialsNote} The user needs WRITE and DESCRIBE on the topic and IDEMPOTENT_WRITE on the cluster.</p>
              {secret('username', 'User name')}
              {secret('password', 'Password')}
            </>
          )}
        </fieldset>
      );
    }
    case 'rabbitmq': {
      const d = same?.__typename === 'RabbitMqDestination' ? same : undefined;
      return (
        <fieldset className="fieldset">
          <legend>RabbitMQ</legend>
          <Field name="destination.url" label="Broker URL" errors={errors} isRequired defaultValue={d?.url} placeholder="amqps://rabbitmq.example.com/ticketing" description="amqps://host[:port][/vhost], without user name or password." />
          <Field name="destination.exchange" label="Exchange" errors={errors} isRequired defaultValue={d?.exchange} placeholder="ticket-events" description="It must exist already." />
          <Field name="destination.routingKeyPrefix" label="Routing key prefix (optional)" errors={errors} defaultValue={d?.routingKeyPrefix} placeholder="tickets."
            description="Each message’s routing key is this prefix and the event type." />
          <p className="hint">{credentialsNote} The user needs write permission on the exchange.</p>
          {secret('username', 'User name')}
          {secret('password', 'Password')}
        </fieldset>
      );
    }
    case 'nats': {
      const d = same?.__typename === 'NatsDestination' ? same : undefined;
      return (
        <fieldset className="fieldset">
          <legend>NATS JetStream</legend>
          <Field name="destination.servers" label="Servers" errors={errors} isRequired defaultValue={d?.servers.join(', ')} placeholder="nats.example.com:4222" description="host:port, separated by commas." />
          <Field name="destination.subject" label="Subject" errors={errors} isRequired defaultValue={d?.subject} placeholder="ticketing"
            description={<>Messages go to <code>&lt;subject&gt;.&lt;event type&gt;</code>; a JetStream stream must capture <code>&lt;subject&gt;.&gt;</code>.</>} />
          <TlsCheckbox defaultSelected={d ? d.tls : true} />
          <ChoiceSelect label="Authentication" name="destination.natsAuth" value={natsAuth} onChange={setNatsAuth} choices={NATS_AUTH_CHOICES} />
          {natsAuth !== 'none' && <p className="hint">{credentialsNote}</p>}
          {natsAuth === 'token' && secret('token', 'Token')}
          {natsAuth === 'password' && (
            <>
              {secret('username', 'User name')}
              {secret('password', 'Password')}
            </>
          )}
        </fieldset>
      );
    }
  }
}

const list = (text: string) => text.split(/[\s,]+/).filter(Boolean);
const optional = (text: string) => (text.trim() === '' ? undefined : text.trim());

/** The credentials typed into the form (undefined: none). */
function credentialsOf(kind: BrokerKind, data: FormData) {
  const value = (name: string) => optional(formText(data, `destination.credentials.${name}`));
  const given = (names: string[]) => (names.some((n) => value(n) !== undefined) ? Object.fromEntries(names.map((n) => [n, value(n) ?? ''])) : undefined);
  if (kind === 'sqs' || kind === 'eventbridge') {
    const aws = given(['accessKeyId', 'secretAccessKey']);
    return aws && { ...aws, ...(value('sessionToken') ? { sessionToken: value('sessionToken') } : {}) };
  }
  if (kind === 'nats') {
    const auth = formText(data, 'destination.natsAuth');
    return auth === 'token' ? given(['token']) : auth === 'password' ? given(['username', 'password']) : undefined;
  }
  return given(['username', 'password']);
}

/** The settings typed into the form, as GraphQL takes them (no credentials). */
function settingsOf(kind: BrokerKind, data: FormData): Record<string, unknown> {
  const text = (name: string) => formText(data, `destination.${name}`).trim();
  const tls = data.get('destination.tls') === 'on';
  switch (kind) {
    case 'sqs':
      return { queueUrl: text('queueUrl'), region: optional(text('region')) };
    case 'eventbridge':
      return { eventBusName: text('eventBusName'), region: text('region'), endpoint: optional(text('endpoint')), sourcePrefix: optional(text('sourcePrefix')) };
    case 'kafka': {
      const sasl = text('sasl');
      return { brokers: list(text('brokers')), topic: text('topic'), tls, sasl: sasl === 'none' || sasl === '' ? undefined : sasl };
    }
    case 'rabbitmq':
      return { url: text('url'), exchange: text('exchange'), routingKeyPrefix: optional(text('routingKeyPrefix')) };
    case 'nats':
      return { servers: list(text('servers')), subject: text('subject'), tls };
  }
}

/** Whether the form's settings are the saved destination's (as the server answers them, defaults filled in). */
function sameSettings(current: WebhookDestination, kind: BrokerKind, settings: Record<string, unknown>): boolean {
  if (current.type !== kind) return false;
  const { __typename: _, type: _type, ...saved } = current as Record<string, unknown>;
  // Lists as their text, absent, empty and false alike.
  const norm = (v: unknown) => (Array.isArray(v) ? (v as string[]).join(',') : typeof v === 'string' ? v : v === true ? 'true' : '');
  const defaults: Record<string, string> = { sourcePrefix: 'ticketing' };
  return Object.keys({ ...saved, ...settings })
    .filter((k) => k !== 'fifo')
    .every((k) => (norm(settings[k]) || defaults[k] || '') === (norm(saved[k]) || defaults[k] || ''));
}

/** What the credentials of a kind need, given the settings (the server refuses the same). */
function neededCredentials(kind: BrokerKind, data: FormData): string[] {
  switch (kind) {
    case 'sqs':
    case 'eventbridge':
      return ['accessKeyId', 'secretAccessKey'];
    case 'rabbitmq':
      return ['username', 'password'];
    case 'kafka':
      return ['none', ''].includes(formText(data, 'destination.sasl')) ? [] : ['username', 'password'];
    case 'nats': {
      const auth = formText(data, 'destination.natsAuth');
      return auth === 'token' ? ['token'] : auth === 'password' ? ['username', 'password'] : [];
    }
  }
}

/**
 * The destination to send from the submitted form: undefined when it is the saved one and no
 * credentials were typed (nothing changes), and the fields still to fill in otherwise.
 */
export function destinationInput(kind: BrokerKind, data: FormData, current: WebhookDestination | undefined): { input?: WebhookDestinationInput; missing: Errors } {
  const settings = settingsOf(kind, data);
  const credentials = credentialsOf(kind, data);
  if (current && !credentials && sameSettings(current, kind, settings)) return { missing: {} };
  const missing: Errors = {};
  const again = current?.type === kind ? 'Type it again: credentials are never shown, and a changed destination needs them.' : 'Fill this in.';
  for (const name of neededCredentials(kind, data)) {
    if (!optional(formText(data, `destination.credentials.${name}`))) missing[`destination.credentials.${name}`] = again;
  }
  const members = Object.fromEntries(Object.entries({ ...settings, ...(credentials ? { credentials } : {}) }).filter(([, v]) => v !== undefined));
  // The one member named by the kind (GraphQL's @oneOf); its members are settingsOf's and credentialsOf's for that kind.
  return { input: { [kind]: members } as unknown as WebhookDestinationInput, missing };
}
