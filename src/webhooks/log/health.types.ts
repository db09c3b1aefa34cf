// GraphQL: a subscription's health numbers (`WebhookSubscription.health`, added here), loaded for every
// subscription of an answer at once (health.repository.ts), so the settings list costs one
// statement for its page, not three queries per row.
import { builder } from '../../graphql/builder.ts';
import { batchPerRequest } from '../../graphql/batch.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
import { healthOf, type HealthAttempt, type SubscriptionHealth } from './health.repository.ts';
import { visibleBoards } from '../subscriptions/webhook.service.ts';
import { WebhookSubscription, WebhookSubscriptionWithSecret } from '../subscriptions/webhook.types.ts';

const HealthAttemptRef = builder.objectRef<HealthAttempt>('WebhookHealthAttempt').implement({
  description: 'One attempt, as the health summary shows it',
  fields: (t) => ({
    status: t.exposeString('status', { description: '`succeeded` or `failed`' }),
    httpStatus: t.exposeInt('httpStatus', { nullable: true, description: 'The receiver’s status; null when no answer came' }),
    error: t.exposeString('error', { nullable: true, description: 'Why there was no answer' }),
    attemptedAt: t.expose('attemptedAt', { type: 'DateTime' }),
    eventType: t.exposeString('eventType'),
  }),
});

const WebhookHealthRef = builder.objectRef<SubscriptionHealth>('WebhookHealth').implement({
  description: 'The subscription’s recent attempts at a glance (those at events the caller sees)',
  fields: (t) => ({
    attempts24h: t.exposeInt('attempts', { description: 'Attempts in the last 24 hours (rolling)' }),
    succeeded24h: t.exposeInt('succeeded', { description: 'Of those, the ones that succeeded' }),
    successRate24h: t.float({ nullable: true, description: 'succeeded24h / attempts24h; null without attempts', resolve: (h) => (h.attempts ? h.succeeded / h.attempts : null) }),
    lastAttempt: t.field({ type: HealthAttemptRef, nullable: true, resolve: (h) => h.lastAttempt }),
    lastFailure: t.field({ type: HealthAttemptRef, nullable: true, description: 'The newest failed attempt (of the log’s 30 days)', resolve: (h) => h.lastFailure }),
  }),
});

const EMPTY: SubscriptionHealth = { attempts: 0, succeeded: 0, lastAttempt: null, lastFailure: null };

// The request's one caller decides the boards for the whole batch.
const load = batchPerRequest<GraphQLContext, string, SubscriptionHealth>((ids, ctx) => healthOf(ids, visibleBoards(ctx.principal!)));

/** The health of subscription `id` for this request's caller, batched with the others the answer asks for. */
const healthFor = async (ctx: GraphQLContext, id: string): Promise<SubscriptionHealth> => (await load(ctx, id)) ?? EMPTY;

// `health` of every subscription answer: the log reads the subscriptions' attempts, and the
// subscriptions' own types know nothing of the log.
const HEALTH_NOTE = 'Its recent attempts at a glance: the last 24 hours’ success, the newest attempt and failure. Loaded for every subscription of the answer in one statement';
builder.objectField(WebhookSubscription, 'health', (t) => t.field({ type: WebhookHealthRef, description: HEALTH_NOTE, resolve: (s, _args, ctx) => healthFor(ctx, s.id) }));
builder.objectField(WebhookSubscriptionWithSecret, 'health', (t) => t.field({ type: WebhookHealthRef, description: HEALTH_NOTE, resolve: (s, _args, ctx) => healthFor(ctx, s.id) }));
