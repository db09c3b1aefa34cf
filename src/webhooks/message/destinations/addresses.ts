// The URL rule for broker destinations (docs/integrators/destinations.md, "Addresses"): every host a
// destination names (a queue URL's, an endpoint's, each broker and server) must resolve only to
// public addresses, and the connection must be encrypted (https, amqps, TLS), unless
// WEBHOOK_ALLOW_PRIVATE_TARGETS lifts both (development and tests). Checked when the subscription
// is saved, and by every sender before it connects (a name that later resolves elsewhere gains nothing).
import net from 'node:net';
import type { FieldError } from '../../../errors/errors.ts';
import { addressRestriction, hostRefusal, privateTargetsAllowed, type UrlPolicyOptions } from '../url-policy.ts';
import { sqsRegion, type BrokerDestinationInput, type StoredSettings, type BrokerType } from './settings.ts';

export interface Endpoint {
  /** The member that names it, as a JSON pointer under /destination. */
  path: string;
  host: string;
  port: number;
  /** Whether the connection is encrypted. */
  encrypted: boolean;
}

const RULE = 'breaks the URL rule: ';

function fromUrl(path: string, raw: string, defaultPorts: Record<string, number>, encryptedSchemes: string[]): Endpoint {
  const u = new URL(raw);
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return { path, host, port: u.port ? Number(u.port) : (defaultPorts[u.protocol] ?? 0), encrypted: encryptedSchemes.includes(u.protocol) };
}

function fromHostPort(path: string, hp: string, encrypted: boolean): Endpoint {
  const i = hp.lastIndexOf(':');
  const host = hp.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { path, host, port: Number(hp.slice(i + 1)), encrypted };
}

const AWS_PORTS = { 'https:': 443, 'http:': 80 };

/** Every host and port the destination connects to. */
function endpointsOf(type: BrokerType, settings: StoredSettings | BrokerDestinationInput): Endpoint[] {
  const s = settings as Record<string, unknown>;
  switch (type) {
    case 'sqs':
      return [fromUrl('/destination/queueUrl', String(s.queueUrl), AWS_PORTS, ['https:'])];
    case 'eventbridge':
      return [fromUrl('/destination/endpoint', typeof s.endpoint === 'string' ? s.endpoint : `https://events.${String(s.region)}.amazonaws.com`, AWS_PORTS, ['https:'])];
    case 'kafka':
      return (s.brokers as string[]).map((b, i) => fromHostPort(`/destination/brokers/${i}`, b, s.tls === true));
    case 'rabbitmq':
      return [fromUrl('/destination/url', String(s.url), { 'amqps:': 5671, 'amqp:': 5672 }, ['amqps:'])];
    case 'nats':
      return (s.servers as string[]).map((b, i) => fromHostPort(`/destination/servers/${i}`, b, s.tls === true));
  }
}

/** The field errors of a destination's addresses (empty: acceptable). */
export async function validateDestination(input: BrokerDestinationInput, options: UrlPolicyOptions): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  if (input.type === 'sqs' && !sqsRegion(input)) errors.push({ path: '/destination/region', message: 'is required: the queue URL does not name a region' });
  if ((input.type === 'kafka' && input.sasl && !input.credentials) || (input.type === 'kafka' && !input.sasl && input.credentials)) {
    errors.push({ path: '/destination/credentials', message: 'go with sasl: send both or neither' });
  }
  const allowed = privateTargetsAllowed(options);
  for (const e of endpointsOf(input.type, input)) {
    if (e.port < 1 || e.port > 65535) errors.push({ path: e.path, message: 'port must be between 1 and 65535' });
    if (!e.encrypted && !allowed) errors.push({ path: e.path, message: `${RULE}must be encrypted (https, amqps, or tls: true)` });
    const refused = await hostRefusal(net.isIP(e.host) ? { kind: 'ip', address: e.host } : { kind: 'name', name: e.host.replace(/\.+$/, '') }, options);
    if (refused) errors.push({ path: e.path, message: RULE + refused });
  }
  return errors;
}

/**
 * The rule on the brokers a Kafka cluster advertises in its metadata, which the client connects to
 * next: an address literal is never looked up (a name goes through the guarded lookup), so a
 * cluster that names a private address is refused here, before any connection to it. The first
 * refusal in plain words, or null.
 */
export function advertisedRefusal(brokers: Iterable<{ host: string; port?: number }>, options: UrlPolicyOptions): string | null {
  if (privateTargetsAllowed(options)) return null;
  for (const { host, port } of brokers) {
    const restriction = net.isIP(host) ? addressRestriction(host) : null;
    if (restriction) return `the cluster advertises a broker at ${port === undefined ? host : `${host}:${port}`}, which the URL rule refuses (a ${restriction} address)`;
  }
  return null;
}

/** The sender's check before it connects: the first refusal among the destination's addresses, in plain words, or null. */
export async function connectRefusal(type: BrokerType, settings: StoredSettings, options: UrlPolicyOptions): Promise<string | null> {
  for (const e of endpointsOf(type, settings)) {
    if (!e.encrypted && !privateTargetsAllowed(options)) return `${e.host}:${e.port} is not encrypted, which the URL rule requires`;
    const refused = await hostRefusal(net.isIP(e.host) ? { kind: 'ip', address: e.host } : { kind: 'name', name: e.host }, options);
    if (refused) return `${e.host}:${e.port} is refused by the URL rule (${refused})`;
  }
  return null;
}
