// GraphQL type and query of a subscription's delivery statistics (GET /webhooks/{id}/stats).
import { builder } from '../../graphql/builder.ts';
import { DEFAULT_STATS_PERIOD, STATS_PERIOD_NAMES, deliveryStatsService, type DeliveryStats } from './delivery-stats.service.ts';

const PERIODS_NOTE = STATS_PERIOD_NAMES.map((p) => `\`${p}\``).join(', ');

const BucketSize = builder.enumType('WebhookStatsBucketSize', {
  values: { hour: { description: 'One UTC hour (period 24h)' }, day: { description: 'One UTC day (periods 7d and 30d)' } } as const,
});

const Durations = builder.objectRef<DeliveryStats['durationMs']>('WebhookAttemptDurations').implement({
  description: 'Percentiles of the attempts’ durations in milliseconds (PostgreSQL percentile_cont, so interpolated; rounded to 0.1 ms); null when there were no attempts',
  fields: (t) => ({
    p50: t.exposeFloat('p50', { nullable: true }),
    p95: t.exposeFloat('p95', { nullable: true }),
    p99: t.exposeFloat('p99', { nullable: true }),
  }),
});

const Bucket = builder.objectRef<DeliveryStats['series'][number]>('WebhookStatsBucket').implement({
  description: 'The attempts of one UTC hour or day',
  fields: (t) => ({
    start: t.expose('start', { type: 'DateTime', description: 'Start of the bucket (UTC); it ends where the next begins' }),
    attempts: t.exposeInt('attempts'),
    succeeded: t.exposeInt('succeeded'),
    failed: t.exposeInt('failed'),
  }),
});

const Stats = builder.objectRef<DeliveryStats>('WebhookDeliveryStats').implement({
  description:
    'The attempts (HTTP tries, of every trigger) that a subscription made in a period, counted by outcome. Deliveries waiting for an attempt (pending, held, cancelled) are not attempts and are not counted.',
  fields: (t) => ({
    subscriptionId: t.exposeString('subscriptionId'),
    period: t.exposeString('period', { description: PERIODS_NOTE }),
    bucket: t.field({ type: BucketSize, resolve: (s) => s.bucket }),
    from: t.expose('from', { type: 'DateTime', description: 'Start of the first bucket (UTC, inclusive)' }),
    to: t.expose('to', { type: 'DateTime', description: 'End of the last bucket, the current one (exclusive)' }),
    attempts: t.exposeInt('attempts', { description: 'Attempts in [from, to)' }),
    succeeded: t.exposeInt('succeeded', { description: 'Attempts answered with a 2xx in time' }),
    failed: t.exposeInt('failed', { description: 'Attempts that failed: another status, a time-out, no connection, a refused address' }),
    successRate: t.exposeFloat('successRate', { nullable: true, description: 'succeeded / attempts, 0 to 1; null when there were no attempts' }),
    durationMs: t.field({ type: Durations, resolve: (s) => s.durationMs }),
    series: t.field({
      type: [Bucket],
      description: 'Every bucket of the period in time order, empty ones with zeros (24 hours, or 7 or 30 days)',
      resolve: (s) => s.series,
    }),
  }),
});

builder.queryFields((t) => ({
  webhookDeliveryStats: t.field({
    type: Stats,
    description: 'Statistics of a subscription’s delivery attempts over a period, with a time series',
    authScopes: { scope: 'webhooks:manage' },
    args: {
      subscriptionId: t.arg.string({ required: true }),
      period: t.arg.string({ description: `${PERIODS_NOTE}; default \`${DEFAULT_STATS_PERIOD}\`` }),
    },
    resolve: (_root, { subscriptionId, period }, ctx) => deliveryStatsService.stats(ctx.principal!, subscriptionId, period),
  }),
}));
