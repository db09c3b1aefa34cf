// Per-key and per-person request limits (docs/integrators/api-conventions.md, "Rate limits"; draft-ietf-httpapi-ratelimit-headers): the
// key's `limits.requestsPerMinute`, or for a signed-in person SESSION_REQUESTS_PER_MINUTE shared by
// all of the person's sessions, over a fixed 60 s window, counted by rate-limiter-flexible in
// process memory, or in Redis when one is given so that several API instances share one count.
// The limit comes with the cached principal: no database round trip per request.
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { config } from '../config.ts';
import { consumePoint, createLimiter, retryAfterSeconds } from './limiter-store.ts';
import { rateLimitRefusals } from '../metrics/metrics.ts';

export const WINDOW_SECONDS = 60;
const KEY_PREFIX = 'ratelimit:apikey';
const PERSON_PREFIX = 'ratelimit:person';

export interface RequestRateLimiter {
  /**
   * Counts one request of the caller (or `points`: the further mutation fields of a GraphQL
   * document). Returns the `RateLimit-Policy` / `RateLimit` headers that every answer carries, or
   * throws 429 `rate_limited` carrying them and `Retry-After`. Anonymous callers are not counted
   * here (no headers; the address limit counts them).
   */
  admit(principal: Principal | null, points?: number): Promise<Record<string, string>>;
}

export function createRequestRateLimiter(opts: { redis?: Redis; sessionRequestsPerMinute?: number } = {}): RequestRateLimiter {
  const sessionLimit = opts.sessionRequestsPerMinute ?? config.limits.sessionRequestsPerMinute;
  // One limiter per distinct limit: rate-limiter-flexible fixes `points` per instance. In Redis
  // they share one counter per key, so a changed limit keeps the count.
  const limiters = new Map<string, RateLimiterAbstract>();
  function limiterFor(keyPrefix: string, points: number): RateLimiterAbstract {
    let limiter = limiters.get(`${keyPrefix}:${points}`);
    if (!limiter) {
      limiter = createLimiter({ points, duration: WINDOW_SECONDS, keyPrefix }, opts.redis);
      limiters.set(`${keyPrefix}:${points}`, limiter);
    }
    return limiter;
  }

  return {
    async admit(principal, points = 1) {
      if (!principal) return {};
      const isKey = principal.kind === 'apiKey';
      const limit = isKey ? principal.limits.requestsPerMinute : sessionLimit;
      const limiter = limiterFor(isKey ? KEY_PREFIX : PERSON_PREFIX, limit);
      const { allowed, res } = await consumePoint(limiter, String(isKey ? principal.apiKey.id : principal.user.id), points);
      const reset = retryAfterSeconds(res);
      const headers = {
        'RateLimit-Policy': `"default";q=${limit};w=${WINDOW_SECONDS}`,
        RateLimit: `"default";r=${res.remainingPoints};t=${reset}`,
      };
      if (!allowed) {
        rateLimitRefusals.inc({ limit: isKey ? 'api_key' : 'session' });
        throw new AppError('rate_limited', `${isKey ? 'This API key' : 'A signed-in person'} may make ${limit} requests per ${WINDOW_SECONDS} s; retry in ${reset} s`, {
          headers: { ...headers, 'Retry-After': String(reset) },
        });
      }
      return headers;
    },
  };
}
