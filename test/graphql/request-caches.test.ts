// Pothos' per-request caches are let go of once a request's operation has ended (src/graphql/context.ts):
// kept, their WeakMap entries held each context, and all it reached, through every young-generation
// collection, which promoted every request to the old generation.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { contextCacheSymbol } from '@pothos/core';
import { RequestCache } from '@pothos/plugin-scope-auth';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { builder } from '../../src/graphql/builder.ts';
import { releaseRequestCaches, requestCaches, type GraphQLContext } from '../../src/graphql/context.ts';

/** The contexts whose scope-auth cache a request used, with the cache it got. */
function recordScopeCaches() {
  const used: { context: GraphQLContext; cache: RequestCache<never> }[] = [];
  const fromContext = RequestCache.fromContext.bind(RequestCache);
  vi.spyOn(RequestCache, 'fromContext').mockImplementation((context, b) => {
    const cache = fromContext(context, b);
    used.push({ context: context as GraphQLContext, cache: cache as unknown as RequestCache<never> });
    return cache;
  });
  return used;
}

describe('request caches', () => {
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  beforeAll(async () => {
    ws = await createTestWorkspace();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('are gone once released: the context no longer holds their key, and a later use starts afresh', () => {
    const context = { principal: null, credentials: 'none' as const, requestId: 'r', ...requestCaches() };
    const cache = RequestCache.fromContext(context, builder as never);
    expect(RequestCache.fromContext(context, builder as never)).toBe(cache);
    releaseRequestCaches(context);
    expect(context[contextCacheSymbol]).toBeUndefined();
    expect(RequestCache.fromContext(context, builder as never)).not.toBe(cache);
  });

  it('are released when a REST answer and a /graphql answer are made', async () => {
    const key = await ws.key();
    const used = recordScopeCaches();
    const rest = await api('GET', '/me', { key: key.value });
    expect(rest.status).toBe(200);
    const graphql = await api('POST', '/graphql', { key: key.value, body: { query: '{ me { apiKey { id } } }' } });
    expect(graphql.status).toBe(200);
    expect(graphql.body.data.me.apiKey.id).toBe(key.record.id);
    // One context per request: the REST one (its X-Request-Id) and the /graphql one.
    const contexts = [...new Set(used.map((u) => u.context))];
    expect(contexts).toHaveLength(2);
    expect(contexts.map((c) => c.requestId)).toContain(rest.headers.get('x-request-id'));
    vi.restoreAllMocks();
    for (const { context, cache } of used) {
      expect(context[contextCacheSymbol as never]).toBeUndefined();
      expect(RequestCache.fromContext(context, builder as never)).not.toBe(cache);
    }
  });
});
