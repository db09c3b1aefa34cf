// GET /webhooks/{id}/stats: the route over the webhookDeliveryStats query.
import { z } from 'zod';
import { defineRoutes } from '../../rest/route.ts';
import { DEFAULT_STATS_PERIOD, STATS_PERIOD_NAMES } from './delivery-stats.service.ts';

const STATS_SELECTION = 'subscriptionId period bucket from to attempts succeeded failed successRate durationMs { p50 p95 p99 } series { start attempts succeeded failed }';

export const deliveryStatsRoutes = defineRoutes([
  {
    operationId: 'getWebhookDeliveryStats',
    method: 'GET',
    path: '/webhooks/{id}/stats',
    tag: 'Webhooks',
    summary: 'Delivery statistics of a subscription over a period',
    description:
      'Needs the scope `webhooks:manage` (and a role that may manage webhooks), like the delivery log. ' +
      'Counts the **attempts** (HTTP tries of every trigger: scheduled, manual re-send, test) made in the period by outcome: `succeeded` (a 2xx within 10 s) and `failed` (anything else); ' +
      'deliveries waiting for an attempt (`pending`, `held`, `cancelled` in the log) are not attempts and are not counted. `successRate` = succeeded / attempts (null without attempts). ' +
      '`durationMs` holds the 50th, 95th and 99th percentiles of the attempts’ durations (PostgreSQL `percentile_cont`, interpolated, rounded to 0.1 ms). ' +
      '`series` has every bucket of the period in time order, empty ones as zeros: 24 UTC hours for `24h`, 7 or 30 UTC days for `7d` and `30d`; the last bucket is the current one, so the period is [`from`, `to`). ' +
      'Attempts are kept 30 days. 422 `validation_failed` at `query/period` for another period; 404 for a subscription of another workspace or one the key’s role does not see.',
    operation: /* GraphQL */ `
      query getWebhookDeliveryStats($id: String!, $period: String) {
        webhookDeliveryStats(subscriptionId: $id, period: $period) { ${STATS_SELECTION} }
      }`,
    params: z.object({ id: z.string().regex(/^wh_[0-9A-Z]{26}$/).describe('Subscription id (`wh_…`)') }),
    query: z.object({
      period: z.enum(STATS_PERIOD_NAMES as [string, ...string[]]).default(DEFAULT_STATS_PERIOD).describe('24 hours in hourly buckets, or 7 or 30 days in daily buckets'),
    }),
    variables: ({ params, query }) => ({ id: params.id, period: query.period }),
    codes: ['forbidden'],
  },
]);
