import type { Principal } from '../auth/principal.ts';

export interface GraphQLContext {
  principal: Principal | null;
  /** How the caller tried to authenticate: decides 401 invalid_token vs unauthenticated. */
  credentials: 'bearer' | 'session' | 'none';
  requestId: string;
}
