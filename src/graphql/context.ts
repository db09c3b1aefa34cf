import { contextCacheSymbol, initContextCache } from '@pothos/core';
import { RequestCache } from '@pothos/plugin-scope-auth';
import type { Principal } from '../access/principal.ts';
import type { IdempotencyClaim } from '../idempotency/idempotency.service.ts';
import type { PageHold } from '../paging/page-budget.ts';

export interface GraphQLContext {
  principal: Principal | null;
  /** How the caller tried to authenticate: decides 401 invalid_token vs unauthenticated. */
  credentials: 'bearer' | 'session' | 'none';
  requestId: string;
  /** The REST route (operationId) running this operation; unset on /graphql. */
  restRoute?: string;
  /** The Idempotency-Key this REST request holds, for an operation that stores its answer itself. */
  idempotencyClaim?: IdempotencyClaim;
  /** Set-Cookie values for the response (sign-in, sign-out); present on /graphql only. */
  responseCookies?: string[];
  /** Other headers for the response (a throttled sign-in's Retry-After); present on /graphql only. */
  responseHeaders?: Record<string, string>;
  /** The caller's address as the limits see it (rate-limit/client-address.ts); present on /graphql only. */
  clientAddress?: string;
  /** A /graphql POST's body, read and parsed by the endpoint under the API's limits; Yoga takes it as
   * the request's parameters (yoga.ts). */
  requestBody?: unknown;
  /** Counts `extra` more requests against the caller's allowance (each mutation field beyond the
   * first, limits.ts; a bulk request's further items), or throws 429 rate_limited. */
  chargeRequests?: (extra: number) => Promise<void>;
  /** The page memory this request holds (paging/page-budget.ts), for the lists it pages. */
  pageHold?: PageHold;
  /** The key of its Pothos caches (requestCaches, below). */
  [contextCacheSymbol]?: object;
}

/**
 * Pothos keeps its per-request caches (scope-auth's decisions, the complexity, Prisma loaders) in
 * WeakMaps keyed by the context, and their values point back at it. V8's young-generation
 * collector (the scavenge) visits a WeakMap's values as strong references, so each context, and
 * everything it reached, survived every scavenge and was promoted to the old generation, found
 * dead only by the next full collection: GET /me promoted ~12 KB per request that way (with the
 * closures the context held), its scavenges took 10-20 ms, and V8's helper threads spent about
 * half as much CPU per request on them as the main thread on the request. Keyed instead by a small object
 * the context holds (Pothos' `initContextCache`), the caches die young once `releaseRequestCaches`
 * lets go of that key, when the operation has ended; scope-auth's, the one every operation fills,
 * is deleted there at once.
 */
export const requestCaches = (): { [contextCacheSymbol]: object } => initContextCache();

/** The property `requestCaches` sets, for a context written out as one literal (the REST handler's). */
export const REQUEST_CACHES: typeof contextCacheSymbol = contextCacheSymbol;

/** After the context's operation has ended: drops its Pothos caches (a later use would key them by the context again). */
export function releaseRequestCaches(context: object): void {
  RequestCache.clearForContext(context);
  (context as { [contextCacheSymbol]?: object })[contextCacheSymbol] = undefined;
}
