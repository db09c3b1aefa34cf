// Requests without a valid key or session, counted per client address (client-address.ts) over a
// fixed 60 s window: the 401s, the OpenAPI document and reference, the settings UI's files,
// anonymous GraphQL (signIn). Keyed and signed-in traffic is not counted here: keys have their
// own limit, and a crowd of anonymous clients behind one address never starves them.
import type { Redis } from 'ioredis';
import { AppError } from '../errors/errors.ts';
import { consumePoint, createLimiter, retryAfterSeconds } from './limiter-store.ts';
import { WINDOW_SECONDS } from './request-rate-limiter.ts';
import { rateLimitRefusals } from '../metrics/metrics.ts';

export interface AddressRateLimiter {
  /** Counts one anonymous request from the address, or throws 429 `rate_limited` with `Retry-After`. */
  admit(address: string): Promise<void>;
}

export function createAddressRateLimiter(opts: { requestsPerMinute: number; redis?: Redis }): AddressRateLimiter {
  const limit = opts.requestsPerMinute;
  const limiter = createLimiter({ points: limit, duration: WINDOW_SECONDS, keyPrefix: 'ratelimit:anonymous' }, opts.redis);
  return {
    async admit(address) {
      const { allowed, res } = await consumePoint(limiter, address);
      if (allowed) return;
      rateLimitRefusals.inc({ limit: 'address' });
      const reset = retryAfterSeconds(res);
      throw new AppError('rate_limited', `Requests without an API key may come ${limit} times per ${WINDOW_SECONDS} s from one address; retry in ${reset} s`, {
        headers: {
          'RateLimit-Policy': `"anonymous";q=${limit};w=${WINDOW_SECONDS}`,
          RateLimit: `"anonymous";r=0;t=${reset}`,
          'Retry-After': String(reset),
        },
      });
    },
  };
}
