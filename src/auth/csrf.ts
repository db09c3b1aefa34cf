// CSRF defences for the settings UI's cookie session (API keys are sent deliberately, never by
// the browser on its own, so Bearer requests skip both checks):
// 1. every state-changing request a session authenticates carries the session's own secret
//    token in X-CSRF-Token, which another site can neither read nor guess;
// 2. a request from a foreign Origin is refused outright; this also stops sign-in CSRF (no
//    session yet) and cross-origin reads that yoga's permissive default CORS would allow.
import crypto from 'node:crypto';
import { AppError } from '../errors/errors.ts';
import { config } from '../config.ts';

const CSRF_HEADER = 'X-CSRF-Token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const isSafeMethod = (method: string) => SAFE_METHODS.has(method.toUpperCase());

/**
 * Our origin is the public one (PUBLIC_BASE_URL), never the one a request names: its Host header is
 * the sender's to choose (a DNS-rebinding page names its own). At `localhost` (the default,
 * http://localhost:PORT) the loopback addresses at that port are the same place.
 */
function isOwnOrigin(origin: string): boolean {
  const own = new URL(config.http.publicBaseUrl);
  if (origin === own.origin) return true;
  if (own.hostname !== 'localhost') return false;
  return ['127.0.0.1', '[::1]'].some((host) => origin === `${own.protocol}//${host}${own.port ? `:${own.port}` : ''}`);
}

/** Browsers send Origin on every cross-origin request and on every POST. */
export function assertSameOrigin(request: Request): void {
  const origin = request.headers.get('origin');
  if (origin === null || isOwnOrigin(origin)) return;
  throw new AppError('csrf_failed', `Requests from ${origin.slice(0, 200)} are refused; other sites must use an API key`);
}

export function assertCsrfToken(headers: Headers, expected: string): void {
  const given = headers.get(CSRF_HEADER);
  if (given === null || !sameSecret(given, expected)) {
    throw new AppError('csrf_failed', `Send the session's CSRF token (viewer { csrfToken }) in the ${CSRF_HEADER} header`);
  }
}

/** Compared as digests: equal lengths for timingSafeEqual, and nothing learnt from timing. */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(digest(a), digest(b));
}
