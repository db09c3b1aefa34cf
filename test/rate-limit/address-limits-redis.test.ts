// The per-address limits against a real redis-server: two instances, each with its own
// connection, share the anonymous request count and the sign-in throttle.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer } from '../support/limits.ts';
import { connectRedis } from '../../src/rate-limit/redis.ts';
import { createAddressRateLimiter } from '../../src/rate-limit/address-rate-limiter.ts';
import { createSignInThrottle } from '../../src/auth/sign-in-throttle.ts';

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'allowed',
    (err: { code?: string }) => err.code,
  );

describe('per-address limits shared through Redis', () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  let connections: Redis[];
  beforeAll(async () => {
    server = await startRedisServer();
    connections = [connectRedis(server.url), connectRedis(server.url)];
    await Promise.all(connections.map((c) => (c.status === 'ready' ? Promise.resolve() : new Promise((resolve) => c.once('ready', resolve)))));
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit()));
    await server.stop();
  });

  it('counts anonymous requests from one address on both instances together', async () => {
    const [a, b] = connections.map((redis) => createAddressRateLimiter({ requestsPerMinute: 3, redis }));
    const answers = [];
    for (const limiter of [a, b, a, b]) answers.push(await outcome(limiter.admit('203.0.113.50')));
    expect(answers).toEqual(['allowed', 'allowed', 'allowed', 'rate_limited']);
  });

  it('counts failed sign-ins on both instances together, and a success on one resets both', async () => {
    const [a, b] = connections.map((redis) => createSignInThrottle({ maxConsecutiveFailures: 2, maxFailuresPerAddressPerDay: 100, redis }));
    await a.begin('person@example.test', '203.0.113.51');
    const attempt = await b.begin('person@example.test', '203.0.113.51');
    await attempt.succeeded();
    await a.begin('person@example.test', '203.0.113.51');
    await b.begin('person@example.test', '203.0.113.51');
    expect(await outcome(a.begin('person@example.test', '203.0.113.51'))).toBe('rate_limited');
    expect(await outcome(b.begin('person@example.test', '203.0.113.51'))).toBe('rate_limited');
  });
});
