// GraphQL types, queries and mutations of webhook subscriptions. The log adds what it reads of
// them (`health`: ../log/health.types.ts) and the delivery log's (../log/delivery-log.types.ts).
import { builder } from '../../graphql/builder.ts';
import { config } from '../../config.ts';
import type { Subscription as SubscriptionRow } from './webhook.repository.ts';
import { DESTINATION_NOTE, FIELDS_NOTE, ORDERING_NOTE, SUBSCRIBABLE_EVENTS, webhookService } from './webhook.service.ts';
import { WebhookDestination, WebhookDestinationInput, destinationView, fromGraphqlDestination } from './destination.types.ts';
import { backlogOf, type WebhookBacklog } from '../delivery/backlog.ts';
import type { BacklogWait } from '../delivery/wait.ts';
import { effectiveInFlight, subscriptionSettings } from '../delivery/run-state.ts';
import { RetryScheduleInput, RetryScheduleRef } from './retry-schedule.types.ts';
import { retryScheduleView } from '../message/retry-schedule.ts';
import { PAYLOAD_NOTE } from '../message/thin-payload.ts';

const MANAGE = { scope: 'webhooks:manage' } as const;
const MAX_IN_FLIGHT_NOTE =
  'Attempts open at once at most (default 10, at most the service’s maximum, 50 by default); further deliveries wait, oldest event first, without counting as failures';
const RATE_NOTE = 'Attempts started per second at most, evenly spaced; null: no rate bound';
const RATE_FLOOR_NOTE = 'at least the service’s minimum (WEBHOOK_MIN_RATE_PER_SECOND, 0.1 by default): validation_failed below it';
const EVENTS_NOTE = SUBSCRIBABLE_EVENTS.map((e) => `\`${e}\``).join(', ');

const SubscriptionConditionEnum = builder.enumType('SubscriptionCondition', {
  values: {
    receiving: { description: 'Deliveries are sent' },
    paused: { description: 'After 20 consecutive failures: nothing is sent, deliveries are held until resumed' },
    disabled: { description: 'After a 410 Gone: nothing is sent, pending deliveries are cancelled, until enabled' },
  } as const,
});

const CONDITION_REASONS = ['failures', 'gone', 'rejected', 'manual'] as const;
const ConditionReasonEnum = builder.enumType('SubscriptionConditionReason', {
  values: {
    failures: { description: 'Paused by the service after 20 failed attempts in a row' },
    gone: { description: 'Disabled by the service: the endpoint answered 410 Gone' },
    rejected: { description: 'Disabled by the service: a broker destination refused deliveries for good (no such queue or topic, access denied, bad credentials)' },
    manual: { description: 'Paused or disabled by a person' },
  } as const,
});
const conditionReasonOf = (s: SubscriptionRow) =>
  s.condition !== 'receiving' && CONDITION_REASONS.includes(s.conditionReason as 'manual') ? (s.conditionReason as (typeof CONDITION_REASONS)[number]) : null;

const OrderingEnum = builder.enumType('WebhookOrdering', {
  values: {
    concurrent: { description: 'Up to the bound in force at once, oldest event first' },
    strict: { description: 'One at a time, in event order' },
  } as const,
});

const PayloadEnum = builder.enumType('WebhookPayload', {
  values: {
    full: { description: 'Each event carries the ticket after the change (the default)' },
    thin: { description: 'Ticket events carry only the ticket’s id, version, changed fields and link' },
  } as const,
});

export type SubscriptionWithSecret = SubscriptionRow & { signingSecret: string };

const BacklogWaitEnum = builder.enumType('WebhookBacklogWait', {
  values: {
    nothing: { description: 'Nothing waits, or what waits is being sent' },
    next_attempt: { description: 'Only retries wait, each for its next scheduled attempt' },
    in_flight_bound: { description: 'The subscription has its bound in force (effectiveInFlight) of attempts open' },
    retry_after: { description: 'The receiver’s Retry-After (retryAfterUntil)' },
    workspace_cap: { description: 'The workspace has the service’s maximum of attempts in flight across its subscriptions' },
    rate: { description: 'The subscription’s rate (ratePerSecond)' },
    paused: { description: 'The subscription is paused: its deliveries are held until it is resumed' },
  } as const satisfies Record<BacklogWait, { description: string }>,
});

const Backlog = builder.objectRef<WebhookBacklog>('WebhookBacklog').implement({
  description: 'The subscription’s deliveries waiting to be sent, oldest event first',
  fields: (t) => ({
    pending: t.exposeInt('pending', { description: 'Deliveries waiting for an attempt (first attempts and retries), or held while paused' }),
    inFlight: t.exposeInt('inFlight', { description: 'Deliveries in flight now: taken by the run’s batches and not yet recorded (a batch has at most effectiveInFlight of them open at once)' }),
    oldestWaitingSince: t.expose('oldestWaitingSince', { type: 'DateTime', nullable: true, description: 'When the oldest waiting delivery fell due (null: none waits)' }),
    waitingFor: t.field({ type: BacklogWaitEnum, resolve: (b) => b.waitingFor }),
  }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type SubscriptionFieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<Types, SubscriptionRow>;

/** The members every subscription answer has (the secret is added where it is issued). */
function subscriptionFields(t: SubscriptionFieldBuilder) {
  return {
    id: t.exposeString('id', { description: '`wh_…`' }),
    url: t.exposeString('url', { description: 'The HTTPS endpoint; for a broker destination, its address in URI form (no credentials)' }),
    destination: t.field({ type: WebhookDestination, description: 'Where deliveries go, and how (credentials are never shown)', resolve: destinationView }),
    events: t.exposeStringList('events', { description: EVENTS_NOTE }),
    boards: t.stringList({ description: 'Board ids; empty means every board', resolve: (s) => s.boardIds }),
    fields: t.exposeStringList('fields', { description: FIELDS_NOTE }),
    description: t.exposeString('description'),
    condition: t.field({ type: SubscriptionConditionEnum, resolve: (s) => s.condition }),
    conditionReason: t.field({
      type: ConditionReasonEnum,
      nullable: true,
      description: 'Why it is paused or disabled; null while receiving',
      resolve: conditionReasonOf,
    }),
    consecutiveFailures: t.exposeInt('consecutiveFailures', { description: 'Failed attempts in a row; 20 pause the subscription' }),
    maxInFlight: t.exposeInt('maxInFlight', { description: MAX_IN_FLIGHT_NOTE }),
    ratePerSecond: t.exposeFloat('ratePerSecond', { nullable: true, description: RATE_NOTE }),
    ordering: t.field({ type: OrderingEnum, description: ORDERING_NOTE, resolve: (s) => s.ordering as 'concurrent' | 'strict' }),
    payload: t.field({ type: PayloadEnum, description: PAYLOAD_NOTE, resolve: (s) => (s.payload === 'thin' ? 'thin' : 'full') }),
    effectiveInFlight: t.int({
      description: 'The bound in force on attempts open at once: maxInFlight (within the service’s maximum), or lower after 429/503 answers until 2xx answers raise it back; 1 when `ordering` is strict',
      resolve: (s) => effectiveInFlight(subscriptionSettings(s, config.webhooks.maxInFlightLimit), s.effectiveInFlight),
    }),
    retryAfterUntil: t.expose('retryAfterUntil', {
      type: 'DateTime',
      nullable: true,
      description: 'The receiver’s last Retry-After (429/503): no attempt starts before this time',
    }),
    backlog: t.field({
      type: Backlog,
      description: 'What waits to be sent now, and for what (the delivery run’s queue)',
      resolve: (s) => backlogOf(s),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    retrySchedule: t.field({ type: RetryScheduleRef, description: 'The retry schedule in force', resolve: (s) => retryScheduleView(s.retrySchedule) }),
  };
}

export const WebhookSubscription = builder.objectRef<SubscriptionRow>('WebhookSubscription').implement({
  description: 'Where and what the workspace sends as signed webhook deliveries',
  fields: (t) => ({
    ...subscriptionFields(t),
    secretRotatedAt: t.expose('secretRotatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'The last rotation; for 24 hours after it deliveries carry the old signature too',
    }),
  }),
});

export const WebhookSubscriptionWithSecret = builder.objectRef<SubscriptionWithSecret>('WebhookSubscriptionWithSecret').implement({
  description: 'A subscription with its signing secret: only in the answers that issue the secret (creation and rotation)',
  fields: (t) => ({
    ...subscriptionFields(t as unknown as SubscriptionFieldBuilder),
    secret: t.string({ description: '`whsec_` and the base64 of 32 random bytes; shown in this answer only', resolve: (s) => s.signingSecret }),
  }),
});

const TestEvent = builder
  .objectRef<{ eventId: string; type: string; occurredAt: string; subscription: SubscriptionRow }>('WebhookTestEvent')
  .implement({
    description: 'The queued `webhook.test` event',
    fields: (t) => ({
      eventId: t.exposeString('eventId'),
      type: t.exposeString('type'),
      occurredAt: t.exposeString('occurredAt'),
      subscription: t.field({ type: WebhookSubscription, resolve: (r) => r.subscription }),
    }),
  });

const SubscriptionInputFields = {
  url: { description: 'https, port 443 or 8443, a public address' },
  events: { description: `Event types to receive (at least one): ${EVENTS_NOTE}` },
  boards: { description: 'Board ids; empty or absent means every board' },
  fields: { description: FIELDS_NOTE },
};

const CreateWebhookSubscriptionInput = builder.inputType('CreateWebhookSubscriptionInput', {
  fields: (t) => ({
    url: t.string({ required: false, ...SubscriptionInputFields.url }),
    destination: t.field({ type: WebhookDestinationInput, required: false, description: DESTINATION_NOTE }),
    events: t.stringList({ required: true, ...SubscriptionInputFields.events }),
    boards: t.stringList({ required: false, ...SubscriptionInputFields.boards }),
    fields: t.stringList({ required: false, ...SubscriptionInputFields.fields }),
    description: t.string({ required: false }),
    maxInFlight: t.int({ required: false, description: MAX_IN_FLIGHT_NOTE }),
    ratePerSecond: t.float({ required: false, description: `${RATE_NOTE}; ${RATE_FLOOR_NOTE}` }),
    ordering: t.field({ type: OrderingEnum, required: false, description: ORDERING_NOTE }),
    retrySchedule: t.field({ type: RetryScheduleInput, required: false, description: 'null: back to the default schedule' }),
    payload: t.field({ type: PayloadEnum, required: false, description: PAYLOAD_NOTE }),
  }),
});

const UpdateWebhookSubscriptionInput = builder.inputType('UpdateWebhookSubscriptionInput', {
  description: 'The members to change; at least one',
  fields: (t) => ({
    url: t.string({ required: false, ...SubscriptionInputFields.url }),
    destination: t.field({ type: WebhookDestinationInput, required: false, description: DESTINATION_NOTE }),
    events: t.stringList({ required: false, ...SubscriptionInputFields.events }),
    boards: t.stringList({ required: false, ...SubscriptionInputFields.boards }),
    fields: t.stringList({ required: false, ...SubscriptionInputFields.fields }),
    description: t.string({ required: false }),
    maxInFlight: t.int({ required: false, description: MAX_IN_FLIGHT_NOTE }),
    ratePerSecond: t.float({ required: false, description: `${RATE_NOTE}; ${RATE_FLOOR_NOTE}; null removes it` }),
    ordering: t.field({ type: OrderingEnum, required: false, description: ORDERING_NOTE }),
    retrySchedule: t.field({ type: RetryScheduleInput, required: false, description: 'null: back to the default schedule' }),
    payload: t.field({ type: PayloadEnum, required: false, description: PAYLOAD_NOTE }),
  }),
});

/** GraphQL gives absent members as undefined and explicit nulls as null; a null is not a value here. */
const defined = (input: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined).map(([k, v]) => [k, k === 'destination' ? fromGraphqlDestination(v) : v]));

const withSecret = ({ subscription, secret }: { subscription: SubscriptionRow; secret: string }): SubscriptionWithSecret => ({
  ...subscription,
  signingSecret: secret,
});

builder.queryFields((t) => ({
  webhookSubscriptions: t.connection(
    {
      type: WebhookSubscription,
      description: 'The workspace’s webhook subscriptions, newest first',
      authScopes: MANAGE,
      resolve: (_root, args, ctx) => webhookService.list(ctx.principal!, args),
    },
    { name: 'WebhookSubscriptionConnection' },
    { name: 'WebhookSubscriptionEdge' },
  ),

  webhookSubscription: t.field({
    type: WebhookSubscription,
    authScopes: MANAGE,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => webhookService.get(ctx.principal!, id),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookSubscription: t.field({
    type: WebhookSubscriptionWithSecret,
    authScopes: MANAGE,
    args: { input: t.arg({ type: CreateWebhookSubscriptionInput, required: true }) },
    resolve: async (_root, { input }, ctx) => withSecret(await webhookService.create(ctx.principal!, defined(input))),
  }),

  updateWebhookSubscription: t.field({
    type: WebhookSubscription,
    authScopes: MANAGE,
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: UpdateWebhookSubscriptionInput, required: true }) },
    resolve: (_root, { id, input }, ctx) => webhookService.update(ctx.principal!, id, defined(input)),
  }),

  deleteWebhookSubscription: t.boolean({
    authScopes: MANAGE,
    description: 'Deletes it; what was still to be sent is cancelled. True when done.',
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      await webhookService.delete(ctx.principal!, id);
      return true;
    },
  }),

  rotateWebhookSecret: t.field({
    type: WebhookSubscriptionWithSecret,
    authScopes: MANAGE,
    description: 'A new signing secret; for 24 hours deliveries carry two signatures, new first',
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, { id }, ctx) => withSecret(await webhookService.rotateSecret(ctx.principal!, id)),
  }),

  sendWebhookTest: t.field({
    type: TestEvent,
    authScopes: MANAGE,
    description: 'Queues one `webhook.test` event to this subscription alone, whatever its filters',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => webhookService.sendTest(ctx.principal!, id),
  }),

  resumeWebhookSubscription: t.field({
    type: WebhookSubscription,
    authScopes: MANAGE,
    description: 'paused → receiving; held deliveries go out in event order with their remaining attempts',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => webhookService.resume(ctx.principal!, id),
  }),

  pauseWebhookSubscription: t.field({
    type: WebhookSubscription,
    authScopes: MANAGE,
    description:
      'receiving → paused, by hand (reason `manual`; emits `webhook.paused` with the caller as actor): nothing is sent, waiting deliveries and new events are held until resumed. `invalid_state_transition` unless receiving',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => webhookService.pause(ctx.principal!, id),
  }),

  disableWebhookSubscription: t.field({
    type: WebhookSubscription,
    authScopes: MANAGE,
    description:
      'receiving or paused → disabled, by hand (reason `manual`; emits `webhook.disabled` with the caller as actor): waiting deliveries are cancelled and nothing is sent until enabled. `invalid_state_transition` when disabled already',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => webhookService.disable(ctx.principal!, id),
  }),

  enableWebhookSubscription: t.field({
    type: WebhookSubscription,
    authScopes: MANAGE,
    description: 'disabled → receiving; events that occurred while disabled are not delivered',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => webhookService.enable(ctx.principal!, id),
  }),
}));
