// The delivery log's routes: GET /webhooks/{id}/deliveries and POST …/deliveries/{deliveryId}/resend.
import { z } from 'zod';
import { defineRoutes, pagedOperation } from '../../rest/route.ts';
import { dateTime } from '../../validation/text.ts';
import { pageQuery, pageVariables } from '../../paging/paging.ts';
import { EVENT_TYPES } from '../../events/event.envelope.ts';
import { SCOPE_NOTE, TAG, prefixedId, subscriptionId } from '../subscriptions/webhook.routes.ts';
import { MANUAL_REQUESTS_PER_DELIVERY } from '../delivery/constants.ts';
import { DELIVERY_STATUSES } from './delivery-log.service.ts';
import { WAIT_REASONS, type WaitReason } from '../delivery/wait.ts';

/** Why an attempt went out late, in the route's description (every reason of the one list). */
const WAITED_NOTES: Record<WaitReason, string> = {
  retry_after: 'the receiver asked',
  in_flight_bound: 'the subscription had its bound in force, `effectiveInFlight`, of attempts open',
  rate: 'its `ratePerSecond`',
  workspace_cap: 'the workspace had the operator’s maximum of attempts in flight across its subscriptions',
};

const ENTRY_SELECTION =
  'id deliveryId eventId eventType attempt trigger status httpStatus durationMs responseExcerpt error payload attemptedAt nextAttemptAt workflowId workflowRunId waited { reason ms } maxAttempts';
const idParams = z.object({ id: subscriptionId });

export const deliveryLogRoutes = defineRoutes([
  {
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhooks/{id}/deliveries',
    tag: TAG,
    summary: 'The delivery log of a subscription, newest first',
    description:
      `${SCOPE_NOTE} Every attempt (kept 30 days), and each delivery waiting without an attempt to show: \`pending\` before its first attempt, \`held\` while the subscription is paused, \`cancelled\`. ` +
      'Filters: `status`, `eventType`, `eventId`, `since` (inclusive), `until` (exclusive) on `attemptedAt` (for a waiting delivery, when it entered that state). Paged: `{data, nextCursor}`. ' +
      `\`waited\` tells when an attempt went out later than its schedule: \`{reason, ms}\` with reason ${WAIT_REASONS.map((r) => `\`${r}\` (${WAITED_NOTES[r]})`).join(', ')}.`,
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
