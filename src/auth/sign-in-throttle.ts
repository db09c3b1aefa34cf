// Password guessing through signIn, throttled before any password is hashed (rate-limiter-flexible's
// login-protection pattern): consecutive failures per e-mail and client address (10, then that pair
// waits an hour), and failures per address per day (100, then the address waits a day). The e-mail
// is counted whether or not an account has it, so the answers tell nothing about which exist.
// Each attempt takes its point before the hash, and a success gives it back: parallel guesses
// cannot all slip past a check made before any of them failed.
import type { Redis } from 'ioredis';
import { AppError } from '../errors/errors.ts';
import { consumePoint, createLimiter, retryAfterSeconds } from '../rate-limit/limiter-store.ts';
import { rateLimitRefusals } from '../metrics/metrics.ts';

const HOUR = 60 * 60;
const DAY = 24 * HOUR;

interface SignInThrottle {
  /**
   * Takes one attempt for the e-mail from the address, or throws 429 `rate_limited` with
   * `Retry-After`. Call `succeeded()` once the password proved right: it clears the pair's count.
   */
  begin(email: string, address: string): Promise<{ succeeded(): Promise<void> }>;
}

export function createSignInThrottle(opts: { maxConsecutiveFailures: number; maxFailuresPerAddressPerDay: number; redis?: Redis }): SignInThrottle {
  const perAddress = createLimiter(
    { points: opts.maxFailuresPerAddressPerDay, duration: DAY, blockDuration: DAY, keyPrefix: 'signin:fail:address' },
    opts.redis,
  );
  // Counted for 7 days from the first failure, so slow guessing adds up too (the in-memory store
  // cannot time anything past 24 days: Node timers are 32-bit).
  const perPair = createLimiter(
    { points: opts.maxConsecutiveFailures, duration: 7 * DAY, blockDuration: HOUR, keyPrefix: 'signin:fail:email-address' },
    opts.redis,
  );

  return {
    async begin(email, address) {
      const pair = `${email.toLowerCase()}|${address}`;
      for (const [limiter, key] of [
        [perAddress, address],
        [perPair, pair],
      ] as const) {
        const { allowed, res } = await consumePoint(limiter, key);
        if (!allowed) {
          const wait = retryAfterSeconds(res);
          rateLimitRefusals.inc({ limit: 'sign_in' });
          throw new AppError('rate_limited', `Too many failed sign-ins; retry in ${wait} s`, { headers: { 'Retry-After': String(wait) } });
        }
      }
      return {
        async succeeded() {
          await Promise.all([perAddress.reward(address, 1), perPair.delete(pair)]);
        },
      };
    },
  };
}
