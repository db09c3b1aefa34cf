// Amazon SQS (docs/integrators/destinations/sqs.md): SendMessageBatch, up to 10 messages a call.
// The body is the delivery's signed body; the Standard Webhooks headers travel as message
// attributes. On a FIFO queue (a name ending in .fifo) MessageGroupId is the ticket's id, so a
// ticket's events are received in order, and MessageDeduplicationId the webhook-id, so SQS itself
// drops a retried attempt it already has (within its five-minute window).
import { SQSClient, SendMessageBatchCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { BROKER_IDLE_MS, MAX_BROKER_CLIENTS } from '../constants.ts';
import { awsClientConfig, awsEntryOutcome, awsOutcome } from './aws.ts';
import { ClientCache, clientKey } from './client-cache.ts';
import { connectRefusal } from './addresses.ts';
import { allOf, since, type BrokerSender, type OutgoingMessage } from './sender.ts';
import { sqsRegion } from './settings.ts';

const SERVICE = 'Amazon SQS';

export function createSqsSender(): BrokerSender<'sqs'> {
  const clients = new ClientCache<SQSClient>({ max: MAX_BROKER_CLIENTS, idleMs: BROKER_IDLE_MS, close: async (c) => c.destroy() });
  return {
    maxBatch: 10,
    async send(destination, messages, context) {
      const started = performance.now();
      const { settings, credentials } = destination;
      const refused = await connectRefusal('sqs', settings, { allowPrivateTargets: context.allowPrivateTargets, workspaceId: context.workspaceId });
      if (refused) return allOf(messages, { verdict: 'retry', error: `${SERVICE}: ${refused}`, durationMs: since(started) });
      const fifo = new URL(settings.queueUrl).pathname.endsWith('.fifo');
      const key = clientKey(context.subscriptionId, settings, credentials);
      const region = sqsRegion(settings) ?? 'us-east-1';
      try {
        const answer = await clients.use(key, async () => new SQSClient(awsClientConfig(region, credentials, context)), (client) =>
          client.send(new SendMessageBatchCommand({ QueueUrl: settings.queueUrl, Entries: messages.map((m, i) => entry(m, i, fifo)) })),
        );
        const failed = new Map((answer.Failed ?? []).map((f) => [f.Id, f]));
        const ok = new Map((answer.Successful ?? []).map((s) => [s.Id, s]));
        const durationMs = since(started);
        return messages.map((_, i) => {
          const s = ok.get(`m${i}`);
          if (s) return { verdict: 'delivered', ack: `SQS MessageId ${s.MessageId}${s.SequenceNumber ? `, sequence ${s.SequenceNumber}` : ''}`, durationMs };
          const f = failed.get(`m${i}`);
          return awsEntryOutcome(SERVICE, f?.Code, f?.Message ?? (f ? undefined : 'no answer for this entry'), durationMs);
        });
      } catch (err) {
        await clients.drop(key);
        return allOf(messages, awsOutcome(SERVICE, err, since(started)));
      }
    },
    close: () => clients.closeAll(),
  };
}

function entry(m: OutgoingMessage, i: number, fifo: boolean) {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries({ ...m.headers, 'webhook-event-type': m.eventType })) attributes[name] = { DataType: 'String', StringValue: value };
  return {
    Id: `m${i}`,
    MessageBody: m.body,
    MessageAttributes: attributes,
    ...(fifo ? { MessageGroupId: m.orderKey, MessageDeduplicationId: m.headers['webhook-id'] } : {}),
  };
}
