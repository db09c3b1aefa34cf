// Rate limits against a real redis-server (Debian's package): two API instances pointed at one
// REDIS_URL share one limit per key; GraphQL field limits keep their counters there too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { createKeysMutation, signInAdmin, startRedisServer } from '../support/limits.ts';
import { createApp } from '../../src/http/app.ts';
import { config, loadConfig } from '../../src/config.ts';
import { connectRedis, sharedRedis } from '../../src/rate-limit/redis.ts';
import { createRequestRateLimiter } from '../../src/rate-limit/request-rate-limiter.ts';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits.ts';
import { fieldLimits } from '../../src/rate-limit/field-limit.ts';

// The service of this file uses the redis-server, with a small default limit.
const redisServer = await startRedisServer();
loadConfig({ ...process.env, REDIS_URL: redisServer.url, DEFAULT_REQUESTS_PER_MINUTE: '4' });

const LIMIT = 4;
const remainingOf = (res: { headers: Headers }) => Number(/;r=(\d+);/.exec(res.headers.get('ratelimit') ?? '')?.[1]);

async function ready(client: Redis) {
  if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
}

describe('rate limits shared through Redis', () => {
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  /** The instance as main.ts builds it: REDIS_URL from the configuration. */
  let first: ReturnType<typeof createApp>;
  /** Another instance with a connection of its own. */
  let second: ReturnType<typeof createApp>;
  let secondConnection: Redis;

  beforeAll(async () => {
    expect(config.redisUrl).toBe(redisServer.url);
    ws = await createTestWorkspace('Redis limits');
    first = createApp();
    secondConnection = connectRedis(redisServer.url);
    second = createApp({ rateLimiter: createRequestRateLimiter({ redis: secondConnection }) });
    await Promise.all([ready(sharedRedis()!), ready(secondConnection)]);
  });

  afterAll(async () => {
    await Promise.all([sharedRedis()?.quit(), secondConnection?.quit()]);
    await redisServer.stop();
  });

  it('two instances count one key together', async () => {
    const key = await ws.key();
    const remaining: number[] = [];
    for (const app of [first, second, first, second]) {
      const res = await api('GET', '/me', { app, key: key.value });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe(`"default";q=${LIMIT};w=60`);
      remaining.push(remainingOf(res));
    }
    expect(remaining).toEqual([3, 2, 1, 0]);
    for (const app of [first, second]) {
      const res = await api('GET', '/me', { app, key: key.value });
      expect(res.status).toBe(429);
      expect(res.body.code).toBe('rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(Number(await secondConnection.get(`ratelimit:apikey:${key.record.id}`))).toBe(LIMIT + 2);
  });

  it('a burst of twice the limit spread over both instances lets exactly the limit through', async () => {
    const key = await ws.key();
    const answers = await Promise.all(
      Array.from({ length: 2 * LIMIT }, (_, i) => api('GET', '/me', { app: i % 2 ? second : first, key: key.value })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(LIMIT);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(LIMIT);
  });

  it('GraphQL calls with the key share the count with REST across instances', async () => {
    const key = await ws.key();
    const query = { query: '{ me { apiKey { id } } }' };
    expect((await api('POST', '/graphql', { app: first, key: key.value, body: query })).status).toBe(200);
    expect((await api('GET', '/me', { app: second, key: key.value })).status).toBe(200);
    expect((await api('POST', '/graphql', { app: second, key: key.value, body: query })).status).toBe(200);
    const last = await api('GET', '/me', { app: first, key: key.value });
    expect(remainingOf(last)).toBe(0);
    const limited = await api('POST', '/graphql', { app: second, key: key.value, body: query });
    expect(limited.status).toBe(429);
    expect(limited.body.errors[0].extensions.code).toBe('rate_limited');
  });

  it('keeps GraphQL field limit counters in Redis', async () => {
    const session = await signInAdmin(first, ws.admin.email!);
    const max = fieldLimits.createApiKey.max;
    // In documents of at most GRAPHQL_LIMITS.mutationFields fields each.
    for (let done = 0; done < max; done += GRAPHQL_LIMITS.mutationFields) {
      const batch = await api('POST', '/graphql', { app: first, headers: session, body: createKeysMutation(Math.min(GRAPHQL_LIMITS.mutationFields, max - done), ws.roles.agent.id) });
      expect(batch.body.errors).toBeUndefined();
    }
    const stored = JSON.parse((await secondConnection.get(`redis-store-id::user:${ws.admin.id}:createApiKey`)) ?? '[]');
    expect(stored).toHaveLength(max);
    const over = await api('POST', '/graphql', { app: second, headers: session, body: createKeysMutation(1, ws.roles.agent.id) });
    expect(over.body.errors[0].extensions.code).toBe('rate_limited');
  });
});
