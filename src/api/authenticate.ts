// Turns request headers into a principal. Bearer tokens are API keys; browser sessions come
// from the settings UI's cookie.
import { AppError } from '../errors/errors.ts';
import { apiKeyService } from '../api-keys/api-key.service.ts';
import type { Principal } from '../access/principal.ts';
import { sessionService, sessionTokenOf } from '../auth/session.service.ts';
import { assertCsrfToken, assertSameOrigin, isSafeMethod } from '../auth/csrf.ts';

export interface RequestAuth {
  principal: Principal | null;
  credentials: 'bearer' | 'session' | 'none';
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** Runs before a credential not in the cache is looked up in the database; may refuse (429). */
export type BeforeLookup = () => Promise<void>;

/** With `required`, a missing key is a 401 too. A present but bad key is always a 401. */
export async function authenticateRequest(headers: Headers, opts: { required: boolean; beforeLookup?: BeforeLookup }): Promise<RequestAuth> {
  const authorization = headers.get('authorization');
  if (authorization === null) {
    if (opts.required) throw new AppError('invalid_token', 'Send the API key as `Authorization: Bearer <API_KEY>`');
    return { principal: null, credentials: 'none' };
  }
  const match = BEARER.exec(authorization);
  if (!match) throw new AppError('invalid_token', 'The Authorization header must be `Bearer <API_KEY>`');
  return { principal: await apiKeyService.authenticate(match[1], Date.now(), opts.beforeLookup), credentials: 'bearer' };
}

/**
 * GraphQL also serves people: without an Authorization header, the settings UI's session
 * cookie, with the CSRF checks of csrf.ts. A bad or expired cookie leaves the caller anonymous.
 */
export async function authenticateGraphQLRequest(request: Request, beforeLookup?: BeforeLookup): Promise<RequestAuth> {
  if (request.headers.has('authorization')) return authenticateRequest(request.headers, { required: false, beforeLookup });
  // Preflights carry no credentials; the request that follows is checked.
  if (request.method !== 'OPTIONS') assertSameOrigin(request);
  const token = sessionTokenOf(request.headers);
  if (token === undefined) return { principal: null, credentials: 'none' };
  const principal = await sessionService.authenticate(token, Date.now(), beforeLookup);
  if (principal && !isSafeMethod(request.method)) assertCsrfToken(request.headers, principal.csrfToken);
  return { principal, credentials: 'session' };
}

