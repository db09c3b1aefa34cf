// GraphQL of a subscription's delivery log: its entries (attempts and waiting deliveries), the
// webhookDeliveries query and the resendWebhookDelivery mutation.
import { builder } from '../../graphql/builder.ts';
import { deliveredPayload } from '../message/thin-payload.ts';
import { DELIVERY_STATUSES, deliveryLogService } from './delivery-log.service.ts';
import type { DeliveryLogRow } from './delivery-log.repository.ts';
import type { WaitReason } from '../delivery/wait.ts';

const MANAGE = { scope: 'webhooks:manage' } as const;

const DeliveryStatusEnum = builder.enumType('DeliveryStatus', { values: DELIVERY_STATUSES });

const WaitReasonEnum = builder.enumType('WebhookWaitReason', {
  values: {
    retry_after: { description: 'The receiver asked for it with Retry-After (429 or 503)' },
    in_flight_bound: { description: 'The subscription had its bound in force (effectiveInFlight) of attempts open' },
    rate: { description: 'The subscription’s rate (ratePerSecond)' },
    workspace_cap: { description: 'The workspace had the service’s maximum of attempts in flight across its subscriptions' },
  } as const satisfies Record<WaitReason, { description: string }>,
});

const Waited = builder.objectRef<{ reason: WaitReason; ms: number }>('WebhookDeliveryWait').implement({
  description: 'What an attempt waited for before it went out, beyond its schedule',
  fields: (t) => ({
    reason: t.field({ type: WaitReasonEnum, description: 'The main reason (the longest wait)', resolve: (w) => w.reason }),
    ms: t.exposeInt('ms', { description: 'Milliseconds waited in all' }),
  }),
});

const DeliveryLogEntry = builder.objectRef<DeliveryLogRow>('WebhookDeliveryAttempt').implement({
  description:
    'One entry of the delivery log: an attempt, or a delivery waiting for its next attempt (`pending` before the first, `held` while paused) or `cancelled`',
  fields: (t) => ({
    id: t.exposeString('id', { description: '`att_…` for an attempt; the delivery id (`dlv_…`) for a delivery with no attempt in this state' }),
    deliveryId: t.exposeString('deliveryId', { description: 'The delivery (one event to one subscription); re-send takes it' }),
    eventId: t.exposeString('eventId', { description: 'Also the `webhook-id` header' }),
    eventType: t.exposeString('eventType'),
    attempt: t.exposeInt('attempt', { description: '1..7 for scheduled attempts; manual re-sends continue the count' }),
    trigger: t.string({ description: '`scheduled`, `manual` (re-send) or `test`', resolve: (r) => r.trigger }),
    status: t.field({ type: DeliveryStatusEnum, resolve: (r) => r.status as (typeof DELIVERY_STATUSES)[number] }),
    httpStatus: t.exposeInt('httpStatus', { nullable: true, description: 'The receiver’s status; null when no answer came' }),
    durationMs: t.exposeInt('durationMs', { nullable: true }),
    responseExcerpt: t.exposeString('responseExcerpt', { nullable: true, description: 'The first 1 KiB of the answer' }),
    error: t.exposeString('error', { nullable: true, description: 'Why there was no answer (time-out, refused connection, refused address)' }),
    payload: t.field({
      type: 'JSON',
      description: 'The event envelope sent (the signed body); for a delivery not yet attempted, the one it will send (thin for a thin subscription)',
      resolve: (r) => deliveredPayload(JSON.parse(r.payload), r.payloadMode ?? 'full'),
    }),
    attemptedAt: t.expose('attemptedAt', { type: 'DateTime', nullable: true }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
    workflowId: t.exposeString('workflowId', { description: 'The Temporal workflow that made the attempt, for operators (Temporal Web): `deliveries:<subscriptionId>` (the subscription’s delivery run) for scheduled attempts' }),
    workflowRunId: t.exposeString('workflowRunId', { nullable: true, description: 'The run of that workflow that made the attempt (Temporal Web opens the workflow’s run by this id); null for a delivery not attempted yet' }),
    waited: t.field({
      type: Waited,
      nullable: true,
      description: 'Set when the attempt went out later than its schedule said: it waited for a Retry-After or for the subscription’s bounds',
      resolve: (r) => (r.waitedReason ? { reason: r.waitedReason, ms: r.waitedMs ?? 0 } : null),
    }),
    maxAttempts: t.int({
      nullable: true,
      description: 'The scheduled attempts of the subscription’s retry schedule in force (`attempt` of `maxAttempts`); null for a manual re-send’s answer',
      resolve: (r) => r.maxAttempts ?? null,
    }),
  }),
});

builder.queryFields((t) => ({
  webhookDeliveries: t.connection(
    {
      type: DeliveryLogEntry,
      description: 'The delivery log of a subscription, newest first (attempts are kept 30 days). Forward paging only (`first`, `after`).',
      authScopes: MANAGE,
      args: {
        subscriptionId: t.arg.string({ required: true }),
        status: t.arg({ type: DeliveryStatusEnum }),
        eventType: t.arg.string(),
        eventId: t.arg.string(),
        since: t.arg({ type: 'DateTime', description: 'At or after this time' }),
        until: t.arg({ type: 'DateTime', description: 'Before this time' }),
      },
      resolve: (_root, { subscriptionId, first, after, last, before, ...filter }, ctx) =>
        deliveryLogService.deliveries(ctx.principal!, subscriptionId, filter, { first, after, last, before }),
    },
    { name: 'WebhookDeliveryAttemptConnection' },
    { name: 'WebhookDeliveryAttemptEdge' },
  ),
}));

builder.mutationFields((t) => ({
  resendWebhookDelivery: t.field({
    type: DeliveryLogEntry,
    authScopes: MANAGE,
    description: 'Sends the delivery again now, same payload and `webhook-id`, as a new attempt with trigger `manual`; answers that attempt',
    args: { subscriptionId: t.arg.string({ required: true }), deliveryId: t.arg.string({ required: true, description: 'A delivery id, or the id of one of its attempts' }) },
    resolve: (_root, { subscriptionId, deliveryId }, ctx) => deliveryLogService.resend(ctx.principal!, subscriptionId, deliveryId, ctx.requestId),
  }),
}));
