// Per-field limits in GraphQL (graphql-rate-limit), keyed by the caller: one GraphQL request may
// hold many aliased mutations, which the per-request limit counts once. A resolver opts in by
// wrapping itself: `resolve: withFieldLimit(fieldLimits.createTicket, async (root, args, ctx) => …)`.
import type { GraphQLResolveInfo } from 'graphql';
import { getGraphQLRateLimiter, InMemoryStore, RedisStore } from 'graphql-rate-limit';
import { AppError } from '../errors/errors.ts';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import type { Principal } from '../access/principal.ts';
import { sharedRedis } from './redis.ts';
import { rateLimitRefusals } from '../metrics/metrics.ts';
import { onResetForTests } from '../reset-for-tests.ts';

interface FieldLimit {
  /** Calls allowed per window for one caller. */
  max: number | ((ctx: GraphQLContext) => number);
  windowSeconds: number;
}

export const fieldLimits = {
  /** Creating keys is a rare administrative act. */
  createApiKey: { max: 10, windowSeconds: 60 },
  /** As many tickets per minute as the key may make requests, however they are batched. */
  createTicket: {
    max: (ctx) => (ctx.principal?.kind === 'apiKey' ? ctx.principal.limits.requestsPerMinute : config.limits.requestsPerMinute),
    windowSeconds: 60,
  },
} satisfies Record<string, FieldLimit>;

const identify = (p: Principal) => (p.kind === 'apiKey' ? `key:${p.apiKey.id}` : `user:${p.user.id}`);

let limiter: ReturnType<typeof getGraphQLRateLimiter> | undefined;
// A test file starts with no calls counted (src/reset-for-tests.ts).
onResetForTests(() => (limiter = undefined));
function fieldRateLimiter() {
  if (!limiter) {
    const redis = sharedRedis();
    limiter = getGraphQLRateLimiter({
      identifyContext: (ctx: GraphQLContext) => identify(ctx.principal!),
      store: redis ? new RedisStore(redis) : new InMemoryStore(),
      formatError: ({ fieldName, max, window }) => `${fieldName} may be called ${max} times per ${window / 1000} s`,
    });
  }
  return limiter;
}

export function withFieldLimit<Parent, Args extends Record<string, unknown>, Ctx extends GraphQLContext, Result>(
  limit: FieldLimit,
  resolve: (parent: Parent, args: Args, ctx: Ctx, info: GraphQLResolveInfo) => Result,
) {
  return async (parent: Parent, args: Args, ctx: Ctx, info: GraphQLResolveInfo): Promise<Awaited<Result>> => {
    // A REST route runs one field per request, already counted against the key's request limit.
    if (ctx.principal && !ctx.restRoute) await enforce(limit, { parent, args, context: ctx, info });
    return await resolve(parent, args, ctx, info);
  };
}

async function enforce(limit: FieldLimit, call: { parent: unknown; args: Record<string, unknown>; context: GraphQLContext; info: GraphQLResolveInfo }) {
  const max = typeof limit.max === 'function' ? limit.max(call.context) : limit.max;
  let refusal: string | undefined;
  try {
    refusal = await fieldRateLimiter()(call, { max, window: `${limit.windowSeconds}s` });
  } catch (err) {
    // An unreachable counter store must not take mutations down with it.
    logger.warn({ err }, 'GraphQL field rate limit unavailable; the call is allowed');
    return;
  }
  if (!refusal) return;
  rateLimitRefusals.inc({ limit: 'field' });
  throw new AppError('rate_limited', refusal, { headers: { 'Retry-After': String(limit.windowSeconds) } });
}
