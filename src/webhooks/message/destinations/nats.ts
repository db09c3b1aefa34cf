// NATS JetStream (docs/integrators/destinations/nats.md): a connection per subscription; each
// delivery is a JetStream publish to `<subject>.<event type>` with the signed body and the Standard
// Webhooks headers, acknowledged by the stream that captures the subject. `Nats-Msg-Id` is the
// webhook-id, so a retried delivery the stream already has (within its duplicate window) is
// acknowledged as a duplicate instead of stored twice. A batch is published pipelined (every
// publish sent, then every acknowledgement awaited), in order on the one connection.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LookupAddress } from 'node:dns';
import { AuthorizationError, headers, NatsConnectionImpl, PermissionViolationError, setTransportFactory, TimeoutError, type NatsConnection } from '@nats-io/transport-node';
import { NodeTransport } from '@nats-io/transport-node/lib/node_transport.js';
import { jetstream, JetStreamApiError } from '@nats-io/jetstream';
import { jserrors } from '@nats-io/jetstream/internal';
import { webhookHosts } from '../host-resolver.ts';
import { guardedLookup } from '../url-policy.ts';
import { BROKER_IDLE_MS, DELIVERY_TIMEOUT_MS, MAX_BROKER_CLIENTS } from '../constants.ts';
import { connectRefusal } from './addresses.ts';
import { ClientCache, clientKey } from './client-cache.ts';
import { allOf, since, type BrokerOutcome, type BrokerSender, type SendContext } from './sender.ts';
import type { BrokerDestination } from './settings.ts';

const SERVICE = 'NATS';
type Nats = Extract<BrokerDestination, { type: 'nats' }>;

export function createNatsSender(): BrokerSender<'nats'> {
  const clients = new ClientCache<NatsConnection>({ max: MAX_BROKER_CLIENTS, idleMs: BROKER_IDLE_MS, close: (nc) => nc.close() });
  return {
    maxBatch: 100,
    async send(destination, messages, context) {
      const started = performance.now();
      const { settings } = destination;
      const refused = await connectRefusal('nats', settings, { allowPrivateTargets: context.allowPrivateTargets, workspaceId: context.workspaceId });
      if (refused) return allOf(messages, { verdict: 'retry', error: `${SERVICE}: ${refused}`, durationMs: since(started) });
      const key = clientKey(context.subscriptionId, settings, destination.credentials);
      try {
        const acks = await clients.use(key, () => open(destination, context, () => void clients.drop(key)), async (nc) => {
          const js = jetstream(nc, { timeout: DELIVERY_TIMEOUT_MS });
          return Promise.allSettled(
            messages.map((m) => {
              const h = headers();
              for (const [name, value] of Object.entries({ ...m.headers, 'content-type': 'application/json', 'webhook-event-type': m.eventType })) h.set(name, value);
              return js.publish(`${settings.subject}.${m.eventType}`, m.body, { msgID: m.headers['webhook-id'], headers: h, timeout: DELIVERY_TIMEOUT_MS });
            }),
          );
        });
        const durationMs = since(started);
        if (acks.some((a) => a.status === 'rejected' && !(a.reason instanceof JetStreamApiError))) void clients.drop(key);
        return acks.map((a, i): BrokerOutcome => {
          if (a.status === 'rejected') return outcomeOf(a.reason, `${settings.subject}.${messages[i].eventType}`, durationMs);
          return { verdict: 'delivered', ack: `JetStream stream ${a.value.stream} seq ${a.value.seq}${a.value.duplicate ? ' (duplicate)' : ''}`, durationMs };
        });
      } catch (err) {
        void clients.drop(key);
        return allOf(messages, outcomeOf(err, settings.subject, since(started)));
      }
    },
    close: () => clients.closeAll(),
  };
}

// The client resolves server names through one function for the whole process; it runs inside
// `open`, which tells it whose lane to use (host-resolver.ts) and applies the URL rule to every
// address it answers, as guardedLookup does for the other senders' sockets.
const resolving = new AsyncLocalStorage<SendContext>();
function resolveServer(hostname: string): Promise<string[]> {
  const context = resolving.getStore();
  if (!context) return Promise.reject(new Error(`${hostname} is resolved only while a delivery connects`));
  const lookup = guardedLookup({ allowPrivateTargets: context.allowPrivateTargets, resolve: (name) => webhookHosts.resolve(name, context.workspaceId) });
  return new Promise((resolve, reject) => lookup(hostname, { all: true }, (err, found) => (err ? reject(err) : resolve((found as unknown as LookupAddress[]).map((a) => a.address)))));
}

async function open({ settings, credentials }: Nats, context: SendContext, onClosed: () => void): Promise<NatsConnection> {
  setTransportFactory({ factory: () => new NodeTransport(), dnsResolveFn: resolveServer });
  const nc = await resolving.run(context, () =>
    NatsConnectionImpl.connect({
      servers: settings.servers,
      name: 'ticketing-webhooks',
      // No reconnecting behind the run's back, and no servers but those configured (a server's
      // gossip could name any address): a lost connection is dropped and the next batch opens one.
      reconnect: false,
      ignoreClusterUpdates: true,
      timeout: DELIVERY_TIMEOUT_MS,
      ...(settings.tls ? { tls: {} } : {}),
      ...(credentials && 'token' in credentials ? { token: credentials.token } : credentials ? { user: credentials.username, pass: credentials.password } : {}),
    }),
  );
  void nc.closed().then(onClosed);
  return nc;
}

/** What a failed publish or connect means, in plain words without a credential. */
function outcomeOf(err: unknown, subject: string, durationMs: number): BrokerOutcome {
  const e = err as Error;
  // A request's failure carries the server's refusal as its cause.
  const refusal = [err, e?.cause].find((x): x is Error => x instanceof AuthorizationError || x instanceof PermissionViolationError);
  if (refusal) return { verdict: 'permanent', error: `${SERVICE}: ${refusal.message.slice(0, 300)}`, durationMs };
  // No stream captures the subject (or JetStream is off for the account): nothing answered the
  // publish. A stream can be created later, and a stream electing a leader answers so too, so it waits.
  if (err instanceof jserrors.JetStreamNotEnabled) return { verdict: 'retry', error: `${SERVICE}: no JetStream stream captures ${subject} (no responders)`, durationMs };
  if (err instanceof TimeoutError) return { verdict: 'retry', error: `${SERVICE}: no acknowledgement within ${DELIVERY_TIMEOUT_MS} ms`, durationMs };
  return { verdict: 'retry', error: `${SERVICE}: ${String(e?.message ?? err).slice(0, 300)}`, durationMs };
}
