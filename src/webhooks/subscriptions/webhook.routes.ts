import { z } from 'zod';
import { defineRoutes, pagedOperation } from '../../rest/route.ts';
import { dateTime } from '../../validation/text.ts';
import { pageQuery, pageVariables } from '../../paging/paging.ts';
import { EVENT_TYPES } from '../../events/event.envelope.ts';
import { DELIVERY_STATUSES, createWebhookInput, updateWebhookInput } from './webhook.service.ts';
import { MANUAL_REQUESTS_PER_DELIVERY } from '../delivery/constants.ts';

/** The subscription representation of every subscription response (docs/integrators/webhooks.md, "Subscriptions"). */
const SUBSCRIPTION_SELECTION =
  'id url events boards fields description condition consecutiveFailures maxInFlight ratePerSecond ordering payload effectiveInFlight retryAfterUntil backlog { pending inFlight oldestWaitingSince waitingFor } createdAt updatedAt retrySchedule { delaysSeconds maxAttempts spanSeconds custom }';
const ENTRY_SELECTION =
  'id deliveryId eventId eventType attempt trigger status httpStatus durationMs responseExcerpt error payload attemptedAt nextAttemptAt workflowId workflowRunId waited { reason ms } maxAttempts';

const prefixedId = (prefix: string, what: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9A-Z]{26}$`))
    .describe(what);
const subscriptionId = prefixedId('wh', 'Subscription id (`wh_…`)');
const idParams = z.object({ id: subscriptionId });
const TAG = 'Webhooks';
const BOUNDS_NOTE =
  'Each subscription bounds what its endpoint receives: `maxInFlight` attempts at once (10 by default) and optionally `ratePerSecond`; deliveries beyond them wait, oldest event first, without using any of their seven attempts. ' +
  'A `429` or `503` answer halves the bound in force (`effectiveInFlight`, at least 1) and 2xx answers raise it back by one per bound’s worth of successes; with a `Retry-After` (seconds or an HTTP date) no attempt starts before that time (`retryAfterUntil`), within what remains of the delivery’s schedule. ' +
  'Retry delays carry ±10% jitter.';
const OPERATIONAL_NOTE =
  'The operational events (`webhook.paused`, `webhook.disabled`, `webhook.resumed`, `webhook.enabled`, `webhook.delivery_failed`) tell of the ' +
  'workspace’s other subscriptions: never of the receiving one itself; with `boards`, only of subscriptions limited to some of those boards. ' +
  '`webhook.delivery_failed` is not sent for deliveries of `webhook.*` events, so failing subscriptions cannot feed each other. ' +
  '`fields` narrows `ticket.updated` to the updates that changed one of the named fields.';
const SCOPE_NOTE = 'Needs the scope `webhooks:manage` (and a role that may manage webhooks).';
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
    summary: 'Subscribe an HTTPS endpoint to events',
    description:
      `${SCOPE_NOTE} The answer holds the signing \`secret\` (\`whsec_…\`), shown here and after a rotation only. ` +
      'URL rule: `https`, port 443 or 8443, no user info, and no private, loopback, link-local, CGNAT, multicast, unspecified, documentation, ULA, NAT64, 6to4 or IPv4-mapped address (also for the addresses a host name resolves to); 422 `validation_failed` at `/url` otherwise. ' +
      `\`boards\` empty or absent means every board. ${OPERATIONAL_NOTE} At most \`limits.maxWebhookSubscriptions\` (GET /me) per key: 422 \`subscription_limit_reached\`. ${ROLE_NOTE} ${BOUNDS_NOTE}`,
    operation: /* GraphQL */ `
      mutation createWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
        createWebhookSubscription(input: $input) { ${SUBSCRIPTION_SELECTION} secret }
      }`,
    body: createWebhookInput,
    variables: ({ body }) => ({ input: body }),
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
    variables: ({ params, body }) => ({ id: params.id, input: body }),
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
  {
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhooks/{id}/deliveries',
    tag: TAG,
    summary: 'The delivery log of a subscription, newest first',
    description:
      `${SCOPE_NOTE} Every attempt (kept 30 days), and each delivery waiting without an attempt to show: \`pending\` before its first attempt, \`held\` while the subscription is paused, \`cancelled\`. ` +
      'Filters: `status`, `eventType`, `eventId`, `since` (inclusive), `until` (exclusive) on `attemptedAt` (for a waiting delivery, when it entered that state). Paged: `{data, nextCursor}`. ' +
      '`waited` tells when an attempt went out later than its schedule: `{reason, ms}` with reason `retry_after` (the receiver asked), `in_flight_bound` (the subscription had `maxInFlight` attempts in flight) or `rate`.',
    operation: pagedOperation('listWebhookDeliveries', 'webhookDeliveries', ENTRY_SELECTION, { subscriptionId: '$id: String!', status: '$status: DeliveryStatus', eventType: '$eventType: String', eventId: '$eventId: String', since: '$since: DateTime', until: '$until: DateTime' }),
    params: idParams,
    query: pageQuery.extend({
      status: z.enum(DELIVERY_STATUSES).optional().describe('Only entries in this status'),
      eventType: z.enum(EVENT_TYPES).optional().describe('Only this event type'),
      eventId: prefixedId('evt', 'Only this event (`evt_…`)').optional(),
      since: dateTime('At or after this time (ISO 8601)').optional(),
      until: dateTime('Before this time (ISO 8601)').optional(),
    }),
    variables: ({ params, query }) => ({
      id: params.id,
      ...pageVariables(query),
      status: query.status ?? null,
      eventType: query.eventType ?? null,
      eventId: query.eventId ?? null,
      since: query.since ?? null,
      until: query.until ?? null,
    }),
    paged: true,
    codes: ['forbidden'],
  },
  {
    operationId: 'resendWebhookDelivery',
    method: 'POST',
    path: '/webhooks/{id}/deliveries/{deliveryId}/resend',
    tag: TAG,
    summary: 'Send a delivery again',
    description:
      `${SCOPE_NOTE} Sends the same payload with the same \`webhook-id\` now, as a new attempt with trigger \`manual\` (the scheduled attempts are not affected), and answers that attempt’s log entry. ` +
      '`deliveryId` is a delivery id (`dlv_…`) or the id of one of its attempts (`att_…`). 422 `invalid_state_transition` while the subscription is paused or disabled. ' +
      'The attempt is sent by the subscription’s delivery run with its other deliveries: within its `maxInFlight`, `ratePerSecond`, the receiver’s `Retry-After` and the workspace’s cap on attempts in flight, so behind a full bound it waits its turn. ' +
      `Re-sends of one delivery that wait together get that one attempt; 429 \`rate_limited\` when ${MANUAL_REQUESTS_PER_DELIVERY} already wait for it. ` +
      'Answers within 15 s: 200 with the attempt when it has its result by then, else 202 with the delivery as `pending` (`attempt` 0, `workflowId` the re-send’s): the attempt goes on, and its entry appears in the delivery log. ' +
      'Only deliveries of tickets the caller may see can be re-sent (404 otherwise).',
    operation: /* GraphQL */ `
      mutation resendWebhookDelivery($id: String!, $deliveryId: String!) {
        resendWebhookDelivery(subscriptionId: $id, deliveryId: $deliveryId) { ${ENTRY_SELECTION} }
      }`,
    params: z.object({ id: subscriptionId, deliveryId: z.string().regex(/^(dlv|att)_[0-9A-Z]{26}$/).describe('Delivery id (`dlv_…`) or attempt id (`att_…`)') }),
    variables: ({ params }) => ({ id: params.id, deliveryId: params.deliveryId }),
    statusOf: (entry) => ((entry as { status?: string } | null)?.status === 'pending' ? 202 : undefined),
    otherSuccess: { 202: 'The attempt is still running after 15 s: the delivery, `pending`; the attempt shows in the delivery log when done' },
    codes: ['invalid_state_transition'],
  },
]);
