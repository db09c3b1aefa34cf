// GraphQL: the operator's bounds on a subscription's settings, so that a form (the settings UI)
// states the same rule the server enforces (webhook.service.ts checkBounds) instead of a copy.
import { builder } from '../graphql/builder.ts';
import { config } from '../config.ts';

interface WebhookLimits {
  minRatePerSecond: number;
  maxInFlight: number;
}

const WebhookLimitsRef = builder.objectRef<WebhookLimits>('WebhookLimits').implement({
  description: 'The service’s bounds on a subscription’s settings (operator settings)',
  fields: (t) => ({
    minRatePerSecond: t.exposeFloat('minRatePerSecond', { description: 'The lowest `ratePerSecond` (WEBHOOK_MIN_RATE_PER_SECOND)' }),
    maxInFlight: t.exposeInt('maxInFlight', { description: 'The highest `maxInFlight` (WEBHOOK_MAX_IN_FLIGHT_LIMIT)' }),
  }),
});

builder.queryField('webhookLimits', (t) =>
  t.field({
    type: WebhookLimitsRef,
    authScopes: { scope: 'webhooks:manage' },
    resolve: () => ({ minRatePerSecond: config.webhooks.minRatePerSecond, maxInFlight: config.webhooks.maxInFlightLimit }),
  }),
);
