// What the SQS and EventBridge senders share: the client's configuration (region, credentials, a
// keep-alive agent whose lookup applies the URL rule in the workspace's lane, the delivery time
// limit) and what an AWS error means for the delivery run.
import http from 'node:http';
import https from 'node:https';
import { webhookHosts } from '../host-resolver.ts';
import { guardedLookup } from '../url-policy.ts';
import type { BrokerOutcome } from './sender.ts';
import type { SendContext } from './sender.ts';

interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The client configuration of one destination. */
export function awsClientConfig(region: string, credentials: AwsCredentials | null, context: SendContext, endpoint?: string) {
  const lookup = guardedLookup({ allowPrivateTargets: context.allowPrivateTargets, resolve: (name) => webhookHosts.resolve(name, context.workspaceId) });
  const agent = { keepAlive: true, maxSockets: 50, lookup };
  return {
    region,
    ...(endpoint ? { endpoint } : {}),
    ...(credentials ? { credentials } : {}),
    // The delivery run retries; the SDK's own retries would hide throttling from it.
    maxAttempts: 1,
    requestHandler: { httpsAgent: new https.Agent(agent), httpAgent: new http.Agent(agent), connectionTimeout: context.timeoutMs, requestTimeout: context.timeoutMs },
  };
}

const PERMANENT = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'AWS.SimpleQueueService.NonExistentQueue',
  'QueueDoesNotExist',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'SignatureDoesNotMatch',
  'InvalidSecurity',
  'InvalidAddress',
  'ResourceNotFoundException',
  'KMS.AccessDeniedException',
  'KmsAccessDenied',
  'KmsDisabled',
  'KmsNotFound',
  'QueueDeletedRecently',
]);
const THROTTLED = new Set(['ThrottlingException', 'Throttling', 'RequestThrottled', 'TooManyRequestsException', 'LimitExceededException', 'SlowDown', 'RequestLimitExceeded', 'KmsThrottled']);

/** What an error of a whole call means, with the service's own code in the words. */
export function awsOutcome(service: string, err: unknown, durationMs: number): BrokerOutcome {
  const e = err as { name?: string; Code?: string; message?: string; $metadata?: { httpStatusCode?: number }; code?: string };
  const code = e.Code ?? e.name ?? e.code ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const words = `${service}: ${code}${e.message && e.message !== code ? ` (${e.message.slice(0, 300)})` : ''}`;
  if (PERMANENT.has(code) || status === 403) return { verdict: 'permanent', error: words, durationMs };
  if (THROTTLED.has(code) || status === 429 || status === 503) return { verdict: 'throttled', error: words, durationMs };
  return { verdict: 'retry', error: words, durationMs };
}

/** What a failed entry of a batch call means: throttled, or retried (one bad message disables nothing). */
export function awsEntryOutcome(service: string, code: string | undefined, message: string | undefined, durationMs: number): BrokerOutcome {
  const verdict = code && THROTTLED.has(code) ? 'throttled' : 'retry';
  return { verdict, error: `${service} refused the message: ${code ?? 'Error'}${message ? ` (${message.slice(0, 300)})` : ''}`, durationMs };
}
