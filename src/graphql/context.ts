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
}
