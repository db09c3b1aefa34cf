// Per-key request limits (decisions.md; draft-ietf-httpapi-ratelimit-headers): the key's
// `limits.requestsPerMinute` over a fixed 60 s window, counted by rate-limiter-flexible in
// process memory, or in Redis when one is given so that several API instances share one count.
// The limit comes with the cached principal: no database round trip per request.
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { consumePoint, createLimiter, retryAfterSeconds } from './limiter-store.ts';
import { rateLimitRefusals } from '../metrics/metrics.ts';

export const WINDOW_SECONDS = 60;
const KEY_PREFIX = 'ratelimit:apikey';

export interface RequestRateLimiter {
  /**
   * Counts one request of the caller. Returns the `RateLimit-Policy` / `RateLimit` headers that
   * every answer carries, or throws 429 `rate_limited` carrying them and `Retry-After`. Callers
   * without an API key are not counted (no headers).
   */
  admit(principal: Principal | null): Promise<Record<string, string>>;
}

export function createRequestRateLimiter(opts: { redis?: Redis } = {}): RequestRateLimiter {
  // One limiter per distinct limit: rate-limiter-flexible fixes `points` per instance. In Redis
  // they share one counter per key, so a changed limit keeps the count.
  const limiters = new Map<number, RateLimiterAbstract>();
  function limiterFor(points: number): RateLimiterAbstract {
    let limiter = limiters.get(points);
    if (!limiter) {
      limiter = createLimiter({ points, duration: WINDOW_SECONDS, keyPrefix: KEY_PREFIX }, opts.redis);
      limiters.set(points, limiter);
    }
    return limiter;
  }

  return {
    async admit(principal) {
      if (principal?.kind !== 'apiKey') return {};
      const limit = principal.limits.requestsPerMinute;
      const { allowed, res } = await consumePoint(limiterFor(limit), String(principal.apiKey.id));
      const reset = retryAfterSeconds(res);
      const headers = {
        'RateLimit-Policy': `"default";q=${limit};w=${WINDOW_SECONDS}`,
        RateLimit: `"default";r=${res.remainingPoints};t=${reset}`,
      };
      if (!allowed) {
        rateLimitRefusals.inc({ limit: 'api_key' });
        throw new AppError('rate_limited', `This API key may make ${limit} requests per ${WINDOW_SECONDS} s; retry in ${reset} s`, {
          headers: { ...headers, 'Retry-After': String(reset) },
        });
      }
      return headers;
    },
  };
}
