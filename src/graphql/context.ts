import type { Principal } from '../auth/principal.ts';
import type { IdempotencyClaim } from '../idempotency/idempotency.service.ts';

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
  /** A /graphql POST's body, read and parsed by the endpoint under the API's limits; Yoga takes it as
   * the request's parameters (yoga.ts). */
  requestBody?: unknown;
}
