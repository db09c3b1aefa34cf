// Amazon EventBridge (docs/integrators/destinations/eventbridge.md): PutEvents, up to 10 entries a
// call (and within its 256 KiB a request). Each entry's Source is the subscription's prefix and the
// event type's first word (`ticketing.ticket`), its DetailType the event type, and its Detail
// `{event, webhook: {id, timestamp, signature, body}}`: `event` for rules to match on, `body` the
// exact signed bytes for a consumer to verify (EventBridge re-serialises `event`).
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { BROKER_IDLE_MS, MAX_BROKER_CLIENTS } from '../constants.ts';
import { awsClientConfig, awsEntryOutcome, awsOutcome } from './aws.ts';
import { ClientCache, clientKey } from './client-cache.ts';
import { connectRefusal } from './addresses.ts';
import { allOf, since, type BrokerOutcome, type BrokerSender, type OutgoingMessage } from './sender.ts';

const SERVICE = 'Amazon EventBridge';
/** PutEvents takes 256 KiB a request at most; entries beyond it go in a call of their own. */
const REQUEST_BYTES = 250 * 1024;

export function createEventBridgeSender(): BrokerSender<'eventbridge'> {
  const clients = new ClientCache<EventBridgeClient>({ max: MAX_BROKER_CLIENTS, idleMs: BROKER_IDLE_MS, close: async (c) => c.destroy() });
  return {
    maxBatch: 10,
    async send(destination, messages, context) {
      const started = performance.now();
      const { settings, credentials } = destination;
      const refused = await connectRefusal('eventbridge', settings, { allowPrivateTargets: context.allowPrivateTargets, workspaceId: context.workspaceId });
      if (refused) return allOf(messages, { verdict: 'retry', error: `${SERVICE}: ${refused}`, durationMs: since(started) });
      const key = clientKey(context.subscriptionId, settings, credentials);
      const open = async () => new EventBridgeClient(awsClientConfig(settings.region, credentials, context, settings.endpoint));
      const entries = messages.map((m) => entry(m, settings.eventBusName, settings.sourcePrefix ?? 'ticketing'));
      const outcomes: BrokerOutcome[] = [];
      // In order, a request's worth at a time; after a call with a failure the rest are not sent.
      for (const group of bySize(entries)) {
        try {
          const answer = await clients.use(key, open, (client) => client.send(new PutEventsCommand({ Entries: group })));
          const durationMs = since(started);
          group.forEach((_, j) => {
            const e = answer.Entries?.[j];
            outcomes.push(e?.EventId ? { verdict: 'delivered', ack: `EventBridge EventId ${e.EventId}`, durationMs } : awsEntryOutcome(SERVICE, e?.ErrorCode, e?.ErrorMessage ?? (e ? undefined : 'no answer for this entry'), durationMs));
          });
        } catch (err) {
          await clients.drop(key);
          const failure = awsOutcome(SERVICE, err, since(started));
          for (let j = 0; j < group.length; j++) outcomes.push({ ...failure });
        }
        if (outcomes.some((o) => o.verdict !== 'delivered')) break;
      }
      return outcomes;
    },
    close: () => clients.closeAll(),
  };
}

function entry(m: OutgoingMessage, eventBusName: string, sourcePrefix: string): PutEventsRequestEntry {
  const detail = {
    event: JSON.parse(m.body) as unknown,
    webhook: { id: m.headers['webhook-id'], timestamp: m.headers['webhook-timestamp'], signature: m.headers['webhook-signature'], body: m.body },
  };
  return { EventBusName: eventBusName, Source: `${sourcePrefix}.${m.eventType.split('.')[0]}`, DetailType: m.eventType, Detail: JSON.stringify(detail) };
}

/** The entries in order, in groups of at most 10 and REQUEST_BYTES. */
function bySize(entries: PutEventsRequestEntry[]): PutEventsRequestEntry[][] {
  const groups: PutEventsRequestEntry[][] = [];
  let size = 0;
  for (const e of entries) {
    const bytes = Buffer.byteLength(e.Detail ?? '') + Buffer.byteLength(e.DetailType ?? '') + Buffer.byteLength(e.Source ?? '');
    const last = groups.at(-1);
    if (last && last.length < 10 && size + bytes <= REQUEST_BYTES) {
      last.push(e);
      size += bytes;
    } else {
      groups.push([e]);
      size = bytes;
    }
  }
  return groups;
}
