import { z } from 'zod';
import { defineRoutes } from '../../rest/route.ts';
import { dateTime } from '../../validation/text.ts';
import { RECOVER_WINDOW_RULE } from './recover.service.ts';

const recoverBody = z.strictObject({
  since: dateTime('Start of the window, inclusive (ISO 8601)'),
  until: dateTime('End of the window, exclusive (ISO 8601); absent means now').optional(),
});

export const recoverRoutes = defineRoutes([
  {
    operationId: 'recoverWebhookDeliveries',
    method: 'POST',
    path: '/webhooks/{id}/recover',
    tag: 'Webhooks',
    summary: 'Re-send the deliveries that failed in a time window',
    description:
      'Needs the scope `webhooks:manage` (and a role that may manage webhooks). ' +
      'Answers 202 at once and re-sends, in the background, every delivery of this subscription that has a failed attempt in the window and has not got through since (its latest attempt failed), ' +
      'with the same body and `webhook-id`, as attempts with trigger `manual`: the subscription’s deliveries go out with them, oldest event first, within its `maxInFlight`, `ratePerSecond` and the receiver’s `Retry-After`. ' +
      'A delivery that succeeds this way gets none of its remaining scheduled retries. Deliveries that succeeded once, and those held while paused, are not re-sent. ' +
      'The recovery stops early if the subscription is paused (e.g. the re-sends fail 20 times in a row), disabled or deleted meanwhile. ' +
      `${RECOVER_WINDOW_RULE} 422 \`validation_failed\` otherwise, naming \`/since\` or \`/until\`. ` +
      '422 `invalid_state_transition` while the subscription is paused or disabled (resume or enable it first). ' +
      'One recovery per subscription at a time: 409 `recovery_in_progress` while another runs (a repeat of the running one’s request gets it). ' +
      'Follow the progress in the delivery log: the re-sent attempts have trigger `manual` and the answer’s `id` as their `workflowId`. ' +
      'One recovery per request: a repeat with the same `Idempotency-Key` (or the same `X-Request-Id`) starts nothing new.',
    operation: /* GraphQL */ `
      mutation recoverWebhookDeliveries($id: String!, $since: DateTime!, $until: DateTime) {
        recoverWebhookDeliveries(subscriptionId: $id, since: $since, until: $until) { id subscriptionId since until status }
      }`,
    params: z.object({ id: z.string().regex(/^wh_[0-9A-Z]{26}$/).describe('Subscription id (`wh_…`)') }),
    body: recoverBody,
    variables: ({ params, body }) => {
      const { since, until } = body as z.infer<typeof recoverBody>;
      return { id: params.id, since, until: until ?? null };
    },
    status: 202,
    idempotent: true,
    codes: ['invalid_state_transition', 'recovery_in_progress'],
  },
]);
