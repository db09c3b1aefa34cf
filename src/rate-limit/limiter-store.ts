// Where rate-limiter-flexible keeps its counters: in process memory, or in Redis (REDIS_URL) so
// that several API instances share one count. While Redis is unreachable each instance counts on
// its own (the insurance limiter) rather than failing or waving requests through.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';

interface LimiterOptions {
  points: number;
  /** Seconds. */
  duration: number;
  keyPrefix: string;
  /** Seconds a key stays refused once over its points. */
  blockDuration?: number;
}

export function createLimiter(options: LimiterOptions, redis?: Redis): RateLimiterAbstract {
  if (!redis) return new RateLimiterMemory(options);
  return new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(options) });
}

/** Counts one point (or `points`); over the limit rate-limiter-flexible rejects with the counter state, returned here as `allowed: false`. */
export async function consumePoint(limiter: RateLimiterAbstract, key: string, points = 1): Promise<{ allowed: boolean; res: RateLimiterRes }> {
  try {
    return { allowed: true, res: await limiter.consume(key, points) };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { allowed: false, res: rejection };
  }
}

/** Whole seconds until the caller may try again, at least 1 (Retry-After). */
export const retryAfterSeconds = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));
