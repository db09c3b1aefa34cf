// GraphQL: the operator's bounds on a subscription's settings, so that a form (the settings UI)
// states the same rule the server enforces (webhook.service.ts checkBounds) instead of a copy.
import { builder } from '../../graphql/builder.ts';
import { config } from '../../config.ts';
import { DEFAULT_DELAYS_SECONDS, MAX_RETRY_SPAN_SECONDS } from '../message/retry-schedule.ts';

interface WebhookLimits {
  minRatePerSecond: number;
  maxInFlight: number;
}

const WebhookLimitsRef = builder.objectRef<WebhookLimits>('WebhookLimits').implement({
  description: 'The service’s bounds on a subscription’s settings (operator settings)',
  fields: (t) => ({
    minRatePerSecond: t.exposeFloat('minRatePerSecond', { description: 'The lowest `ratePerSecond` (WEBHOOK_MIN_RATE_PER_SECOND)' }),
    maxInFlight: t.exposeInt('maxInFlight', { description: 'The highest `maxInFlight` (WEBHOOK_MAX_IN_FLIGHT_LIMIT)' }),
    retryMinDelaySeconds: t.int({ description: 'The shortest delay of a `retrySchedule` (WEBHOOK_RETRY_MIN_DELAY_SECONDS)', resolve: () => config.webhooks.retryMinDelaySeconds }),
    defaultRetryDelaysSeconds: t.intList({ description: 'The default retry schedule’s delays; a `retrySchedule` has at most as many, adding up to at most as much', resolve: () => [...DEFAULT_DELAYS_SECONDS] }),
    maxRetrySpanSeconds: t.int({ description: 'The most a `retrySchedule`’s delays may add up to (the default’s span)', resolve: () => MAX_RETRY_SPAN_SECONDS }),
  }),
});

builder.queryField('webhookLimits', (t) =>
  t.field({
    type: WebhookLimitsRef,
    authScopes: { scope: 'webhooks:manage' },
    resolve: () => ({ minRatePerSecond: config.webhooks.minRatePerSecond, maxInFlight: config.webhooks.maxInFlightLimit }),
  }),
);
