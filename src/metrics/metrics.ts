// Every Prometheus metric of the service, in one registry (docs/operators/observability.md). Labels
// take values from fixed sets only (route templates, status codes, outcomes), never from raw
// paths or caller text, so a stranger cannot grow the number of series. No database here (the
// rate limits and the CLI import this): the gauges read at scrape time are in webhook-gauges.ts.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { onResetForTests } from '../reset-for-tests.ts';

export const registry = new Registry();
// A test file counts from zero, as in a process of its own (src/reset-for-tests.ts).
onResetForTests(() => registry.resetMetrics());
// Process CPU, memory, file descriptors, event-loop lag, GC, heap: prom-client's defaults.
collectDefaultMetrics({ register: registry });

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by route template (unmatched paths: "unmatched"), method and status code',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from a request\'s arrival until its answer\'s headers are ready, by route template and method',
  labelNames: ['route', 'method'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const graphqlOperations = new Counter({
  name: 'graphql_operations_total',
  help: 'GraphQL operations at /graphql by operation name and outcome (success, error, rejected)',
  labelNames: ['operation', 'outcome'] as const,
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: 'rate_limit_refusals_total',
  help: 'Requests refused with 429 rate_limited, by the limit that refused them (api_key, session, address, sign_in, field)',
  labelNames: ['limit'] as const,
  registers: [registry],
});

export const outboxRelayedEvents = new Counter({
  name: 'outbox_relayed_events_total',
  help: 'Events handed to Temporal by this process\'s relay (their workflow started, or none needed)',
  registers: [registry],
});

/** How long a PostgreSQL connection took to get from the pool (its fair turn, src/db/fair-pool.ts), by the kind of lane that asked. */
export const dbPoolConnectWait = new Histogram({
  name: 'db_pool_connect_wait_seconds',
  help: 'Time from asking the PostgreSQL pool for a connection until having one, by lane kind: workspace (its requests and delivery steps), request (before its workspace is known), bulk_jobs, service',
  labelNames: ['lane'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** The relay's batch, step by step (claim, write, signal, mark): where an event's way to its run goes. */
export const outboxRelayStepDuration = new Histogram({
  name: 'outbox_relay_step_duration_seconds',
  help: 'Duration of each step of one outbox relay batch: claim (take events), write (their deliveries), signal (wake the runs), mark (relayed)',
  labelNames: ['step'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** How long events waited from their occurrence until a relay took them: the outbox's lag. */
export const outboxRelayPickupDelay = new Histogram({
  name: 'outbox_relay_pickup_delay_seconds',
  help: 'Time from an event\'s occurrence (its writer\'s clock, before its transaction committed) until a relay claimed it',
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

/** Per lane: the events claimed and written whose runs are being woken; a lane at its cap (2,000) claims nothing more until some are. */
export const outboxRelayWakingEvents = new Gauge({
  name: 'outbox_relay_waking_events',
  help: 'Events this process\'s relay claimed and wrote whose delivery runs it is waking, by lane; a lane claims no more while it holds 2,000',
  labelNames: ['lane'] as const,
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts sent, by outcome (succeeded, failed, gone) and trigger (scheduled, manual, test)',
  labelNames: ['outcome', 'trigger'] as const,
  registers: [registry],
});

export const webhookAttemptDuration = new Histogram({
  name: 'webhook_delivery_attempt_duration_seconds',
  help: 'Duration of a webhook delivery attempt\'s HTTP request, by outcome',
  labelNames: ['outcome'] as const,
  // The receiver has 10 s.
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  registers: [registry],
});

export const webhookRetriesScheduled = new Counter({
  name: 'webhook_delivery_retries_scheduled_total',
  help: 'Failed scheduled attempts that have another attempt scheduled',
  registers: [registry],
});

export const webhookDeliveriesSettled = new Counter({
  name: 'webhook_deliveries_settled_total',
  help: 'Deliveries that reached their end through an attempt, by outcome (succeeded, failed: no attempt left, cancelled: 410 Gone)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const webhookSubscriptionChanges = new Counter({
  name: 'webhook_subscription_condition_changes_total',
  help: 'Subscriptions paused (consecutive failures) or disabled (410 Gone) by a delivery attempt',
  labelNames: ['condition'] as const,
  registers: [registry],
});

// The series that alerts count (deploy/prometheus/alerts.yml) exist from the start at 0: Prometheus'
// increase() and rate() see nothing in a series' first sample, so a first pause would go unnoticed.
for (const condition of ['paused', 'disabled']) webhookSubscriptionChanges.inc({ condition }, 0);
for (const outcome of ['succeeded', 'failed', 'cancelled']) webhookDeliveriesSettled.inc({ outcome }, 0);
