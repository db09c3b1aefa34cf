// Per-field limits in GraphQL (graphql-rate-limit through withFieldLimit), counted per caller:
// aliases in one request count one by one.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { createKeysMutation, signInAdmin } from '../support/limits.ts';
import { createApp } from '../../src/http/app.ts';
import { fieldLimits } from '../../src/rate-limit/field-limit.ts';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits.ts';

describe('GraphQL field limit on createApiKey', () => {
  const app = createApp();
  const max = fieldLimits.createApiKey.max;
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  let session: Record<string, string>;
  beforeAll(async () => {
    ws = await createTestWorkspace('Field limits');
    session = await signInAdmin(app, ws.admin.email!);
  });

  it(`allows ${max} calls per minute to one administrator, however batched, then answers rate_limited`, async () => {
    // In documents of at most GRAPHQL_LIMITS.mutationFields fields each.
    for (let done = 0; done < max; done += GRAPHQL_LIMITS.mutationFields) {
      const size = Math.min(GRAPHQL_LIMITS.mutationFields, max - done);
      const batch = await api('POST', '/graphql', { app, headers: session, body: createKeysMutation(size, ws.roles.agent.id) });
      expect(batch.body.errors).toBeUndefined();
      expect(Object.keys(batch.body.data)).toHaveLength(size);
    }

    const over = await api('POST', '/graphql', { app, headers: session, body: createKeysMutation(1, ws.roles.agent.id) });
    expect(over.body.data).toBeNull();
    expect(over.body.errors).toHaveLength(1);
    expect(over.body.errors[0]).toMatchObject({
      path: ['k0'],
      message: `createApiKey may be called ${max} times per 60 s`,
      extensions: { code: 'rate_limited', status: 429 },
    });
  });

  it('counts each caller on its own', async () => {
    const other = await createTestWorkspace('Field limits, other');
    const otherSession = await signInAdmin(app, other.admin.email!);
    const res = await api('POST', '/graphql', { app, headers: otherSession, body: createKeysMutation(1, other.roles.agent.id) });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.k0.apiKey.id).toEqual(expect.any(Number));
  });
});
