import type { Principal } from '../auth/principal.ts';

export interface GraphQLContext {
  principal: Principal | null;
  /** How the caller tried to authenticate: decides 401 invalid_token vs unauthenticated. */
  credentials: 'bearer' | 'session' | 'none';
  requestId: string;
  /** The REST route (operationId) running this operation; unset on /graphql. */
  restRoute?: string;
  /** Set-Cookie values for the response (sign-in, sign-out); present on /graphql only. */
  responseCookies?: string[];
}
