import { z } from 'zod';
import { defineRoutes, pagedOperation } from '../../rest/route.ts';
import { pageQuery, pageVariables } from '../../paging/paging.ts';
import { createWebhookInput, updateWebhookInput } from './webhook.service.ts';
import { toGraphqlDestination } from './destination.types.ts';

/** REST's `destination: {type, ...}` as GraphQL's one-member input. */
const withGraphqlDestination = (body: unknown) =>
  body && typeof body === 'object' && 'destination' in body ? { ...body, destination: toGraphqlDestination(body.destination) } : body;

/** The subscription representation of every subscription response (docs/integrators/webhooks.md, "Subscriptions"). */
const DESTINATION_SELECTION =
  'destination { ... on HttpsDestination { type url } ... on SqsDestination { type queueUrl region fifo } ... on EventBridgeDestination { type eventBusName region endpoint sourcePrefix } ' +
  '... on KafkaDestination { type brokers topic tls sasl } ... on RabbitMqDestination { type url exchange routingKeyPrefix } ... on NatsDestination { type servers subject tls } }';
const SUBSCRIPTION_SELECTION =
  `id url ${DESTINATION_SELECTION} events boards fields description condition consecutiveFailures maxInFlight ratePerSecond ordering payload effectiveInFlight retryAfterUntil backlog { pending inFlight oldestWaitingSince waitingFor } createdAt updatedAt retrySchedule { delaysSeconds maxAttempts spanSeconds custom }`;

export const prefixedId = (prefix: string, what: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9A-Z]{26}$`))
    .describe(what);
export const subscriptionId = prefixedId('wh', 'Subscription id (`wh_…`)');
const idParams = z.object({ id: subscriptionId });
export const TAG = 'Webhooks';
const BOUNDS_NOTE =
  'Each subscription bounds what its endpoint receives: `maxInFlight` attempts at once (10 by default) and optionally `ratePerSecond`; deliveries beyond them wait, oldest event first, without using any of their seven attempts. ' +
  'A `429` or `503` answer halves the bound in force (`effectiveInFlight`, at least 1; always 1 with `ordering: strict`), and so does no answer at all (a time-out, a refused or reset connection); 2xx answers raise it back by one per bound’s worth of successes; with a `Retry-After` (seconds or an HTTP date) no attempt starts before that time (`retryAfterUntil`), within what remains of the delivery’s schedule. ' +
  'Retry delays carry ±10% jitter.';
const OPERATIONAL_NOTE =
  'The operational events (`webhook.paused`, `webhook.disabled`, `webhook.resumed`, `webhook.enabled`, `webhook.delivery_failed`) tell of the ' +
  'workspace’s other subscriptions: never of the receiving one itself; with `boards`, only of subscriptions limited to some of those boards. ' +
  '`webhook.delivery_failed` is not sent for deliveries of `webhook.*` events, so failing subscriptions cannot feed each other. ' +
  '`fields` narrows `ticket.updated` to the updates that changed one of the named fields.';
export const SCOPE_NOTE = 'Needs the scope `webhooks:manage` (and a role that may manage webhooks).';
const ROLE_NOTE =
  'A key whose role does not see every board sees, and may save, only subscriptions limited to boards it sees.';

const simpleAction = (name: string, field: string, path: string, summary: string, description: string, codes: 'invalid_state_transition'[] = []) => ({
  operationId: name,
  method: 'POST' as const,
  path,
  tag: TAG,
  summary,
  description: `${SCOPE_NOTE} ${description}`,
  operation: /* GraphQL */ `
      mutation ${name}($id: String!) {
        ${field}(id: $id) { ${SUBSCRIPTION_SELECTION} }
      }`,
  params: idParams,
  variables: ({ params }: { params: Record<string, unknown> }) => ({ id: params.id }),
  codes,
});


export const webhookRoutes = defineRoutes([
  {
    operationId: 'listWebhookSubscriptions',
    method: 'GET',
    path: '/webhooks',
    tag: TAG,
    summary: 'Webhook subscriptions, newest first',
    description: `${SCOPE_NOTE} ${ROLE_NOTE} Paged: \`{data, nextCursor}\`.`,
    operation: pagedOperation('listWebhookSubscriptions', 'webhookSubscriptions', SUBSCRIPTION_SELECTION),
    query: pageQuery,
    variables: ({ query }) => pageVariables(query),
    paged: true,
    codes: ['forbidden'],
  },
  {
    operationId: 'createWebhookSubscription',
    method: 'POST',
    path: '/webhooks',
    tag: TAG,
    summary: 'Subscribe an HTTPS endpoint, or a queue or bus, to events',
    description:
      `${SCOPE_NOTE} The answer holds the signing \`secret\` (\`whsec_…\`), shown here and after a rotation only. ` +
      'Send `url` for an HTTPS endpoint, or `destination` for Amazon SQS, Amazon EventBridge, Apache Kafka, RabbitMQ or NATS JetStream (credentials write-only; the same body and signed headers as message attributes). URL rule: `https`, port 443 or 8443, no user info, and no private, loopback, link-local, CGNAT, multicast, unspecified, documentation, ULA, NAT64, 6to4 or IPv4-mapped address (also for the addresses a host name resolves to); 422 `validation_failed` at `/url` otherwise. ' +
      `\`boards\` empty or absent means every board. ${OPERATIONAL_NOTE} At most \`limits.maxWebhookSubscriptions\` (GET /me) per key: 422 \`subscription_limit_reached\`. ${ROLE_NOTE} ${BOUNDS_NOTE}`,
    operation: /* GraphQL */ `
      mutation createWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
        createWebhookSubscription(input: $input) { ${SUBSCRIPTION_SELECTION} secret }
      }`,
    body: createWebhookInput,
    variables: ({ body }) => ({ input: withGraphqlDestination(body) }),
    status: 201,
    carriesSecret: true,
    codes: ['subscription_limit_reached'],
  },
  {
    operationId: 'getWebhookSubscription',
    method: 'GET',
    path: '/webhooks/{id}',
    tag: TAG,
    summary: 'One webhook subscription',
    description: SCOPE_NOTE,
    operation: /* GraphQL */ `
      query getWebhookSubscription($id: String!) {
        webhookSubscription(id: $id) { ${SUBSCRIPTION_SELECTION} }
      }`,
    params: idParams,
    variables: ({ params }) => ({ id: params.id }),
    codes: ['forbidden'],
  },
  {
    operationId: 'updateWebhookSubscription',
    method: 'PATCH',
    path: '/webhooks/{id}',
    tag: TAG,
    summary: 'Change a webhook subscription',
    description: `${SCOPE_NOTE} Send only the members to change (at least one); the URL rule applies as on creation. The condition changes only through resume and enable. A new \`maxInFlight\` starts afresh (a bound lowered by 429/503 answers is reset); \`ratePerSecond: null\` removes the rate. ${BOUNDS_NOTE}`,
    operation: /* GraphQL */ `
      mutation updateWebhookSubscription($id: String!, $input: UpdateWebhookSubscriptionInput!) {
        updateWebhookSubscription(id: $id, input: $input) { ${SUBSCRIPTION_SELECTION} }
      }`,
    params: idParams,
    body: updateWebhookInput,
    variables: ({ params, body }) => ({ id: params.id, input: withGraphqlDestination(body) }),
  },
  {
    operationId: 'deleteWebhookSubscription',
    method: 'DELETE',
    path: '/webhooks/{id}',
    tag: TAG,
    summary: 'Delete a webhook subscription',
    description: `${SCOPE_NOTE} Deliveries not yet sent are cancelled; nothing more is sent.`,
    operation: /* GraphQL */ `
      mutation deleteWebhookSubscription($id: String!) {
        deleteWebhookSubscription(id: $id)
      }`,
    params: idParams,
    variables: ({ params }) => ({ id: params.id }),
    status: 204,
  },
  {
    operationId: 'rotateWebhookSecret',
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    tag: TAG,
    summary: 'Issue a new signing secret',
    description: `${SCOPE_NOTE} The new \`secret\` is in this answer only. It signs from now on; for 24 hours every delivery also carries the old secret’s signature (\`webhook-signature: v1,<new> v1,<old>\`), so receivers can switch without losing deliveries.`,
    operation: /* GraphQL */ `
      mutation rotateWebhookSecret($id: String!) {
        rotateWebhookSecret(id: $id) { ${SUBSCRIPTION_SELECTION} secret }
      }`,
    params: idParams,
    variables: ({ params }) => ({ id: params.id }),
    carriesSecret: true,
  },
  {
    operationId: 'sendWebhookTest',
    method: 'POST',
    path: '/webhooks/{id}/test',
    tag: TAG,
    summary: 'Queue a webhook.test event to this subscription',
    description: `${SCOPE_NOTE} Queues one \`webhook.test\` event for this subscription alone, whatever its filters; it is delivered like any event (while paused it is held). 422 \`invalid_state_transition\` when disabled. ` +
      '422 `held_delivery_limit_reached` while paused and holding as many deliveries as a subscription may (100 unless the operator set another limit; test events on their way count): resume it first. ' +
      'Events that occur while a paused subscription holds that many are skipped for it (not delivered, not even on resume).',
    operation: /* GraphQL */ `
      mutation sendWebhookTest($id: String!) {
        sendWebhookTest(id: $id) { eventId type occurredAt }
      }`,
    params: idParams,
    variables: ({ params }) => ({ id: params.id }),
    status: 202,
    codes: ['invalid_state_transition', 'held_delivery_limit_reached'],
  },
  simpleAction(
    'resumeWebhookSubscription',
    'resumeWebhookSubscription',
    '/webhooks/{id}/resume',
    'Resume a paused subscription',
    'paused → receiving, with a fresh failure count; deliveries held while paused then go out in event order with their remaining attempts. 422 `invalid_state_transition` when not paused.',
    ['invalid_state_transition'],
  ),
  simpleAction(
    'enableWebhookSubscription',
    'enableWebhookSubscription',
    '/webhooks/{id}/enable',
    'Re-enable a disabled subscription',
    'disabled (after a 410 Gone) → receiving. Events that occurred while it was disabled are not delivered. 422 `invalid_state_transition` when not disabled.',
    ['invalid_state_transition'],
  ),
]);
