// GraphQL of recovery: the recoverWebhookDeliveries mutation and what it answers.
import { builder } from '../../graphql/builder.ts';
import { RECOVER_WINDOW_RULE, recoverService, recoveryRequestId } from './recover.service.ts';

interface RecoveryRow {
  id: string;
  subscriptionId: string;
  since: string;
  until: string;
  status: 'running' | 'finished';
}

const RecoveryStatusEnum = builder.enumType('WebhookRecoveryStatus', {
  values: {
    running: { description: 'Re-sending' },
    finished: { description: 'Done (a repeated request got the recovery it started earlier)' },
  } as const,
});

const WebhookRecovery = builder.objectRef<RecoveryRow>('WebhookRecovery').implement({
  description:
    'A recovery: the failed deliveries of the window are re-sent, oldest event first, as manual attempts. Follow it in the delivery log: its attempts have trigger `manual` and this `id` as their `workflowId`.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Also its Temporal workflow id (`recover:<subscriptionId>:<requestId>`), for operators (Temporal Web)' }),
    subscriptionId: t.exposeString('subscriptionId'),
    since: t.field({ type: 'DateTime', description: 'Inclusive', resolve: (r) => r.since }),
    until: t.field({ type: 'DateTime', description: 'Exclusive; the time of the request when it was not given', resolve: (r) => r.until }),
    status: t.field({ type: RecoveryStatusEnum, resolve: (r) => r.status }),
  }),
});

builder.mutationFields((t) => ({
  recoverWebhookDeliveries: t.field({
    type: WebhookRecovery,
    authScopes: { scope: 'webhooks:manage' },
    description: `Re-sends every delivery that failed in the window and has not got through since, oldest event first, same body and \`webhook-id\`, as manual attempts. ${RECOVER_WINDOW_RULE}`,
    args: {
      subscriptionId: t.arg.string({ required: true }),
      since: t.arg({ type: 'DateTime', required: true }),
      until: t.arg({ type: 'DateTime' }),
    },
    resolve: (_root, { subscriptionId, since, until }, ctx) =>
      recoverService.recover(ctx.principal!, subscriptionId, { since, until }, recoveryRequestId(ctx.principal!, ctx)),
  }),
}));
