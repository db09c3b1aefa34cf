// Every field that does work costs the caller's allowance: a /graphql document runs at most
// GRAPHQL_LIMITS.mutationFields mutation fields, and each beyond the first counts as one more
// request of the caller. The report's case: 16 sendWebhookTest fields queued 16 events for one
// request of the key's allowance.
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import { prisma } from '../../src/db/db.ts';
import { createApp } from '../../src/http/app.ts';
import { GRAPHQL_LIMITS, mutationFieldCount } from '../../src/graphql/limits.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { createSubscription } from '../webhooks/fixtures.ts';

const max = GRAPHQL_LIMITS.mutationFields;
const testEvents = (n: number, id: string) => ({
  query: `mutation($id: String!) { ${Array.from({ length: n }, (_, i) => `t${i}: sendWebhookTest(id: $id) { eventId }`).join(' ')} }`,
  variables: { id },
});

describe('mutation fields per document', () => {
  const app = createApp();
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  let subId: string;
  const queued = () => prisma.event.count({ where: { targetSubscriptionId: subId } });

  beforeAll(async () => {
    ws = await createTestWorkspace('Mutation fields');
    subId = (await createSubscription(ws, { url: 'https://hooks.example.com/m' })).id;
  });

  it('counts root mutation fields through fragments, not queries or __typename', () => {
    expect(mutationFieldCount(parse('mutation { a: signOut b: signOut __typename ...F ... on Mutation { c: signOut } } fragment F on Mutation { d: signOut }'))).toBe(4);
    expect(mutationFieldCount(parse('{ a: me { id } b: me { id } }'))).toBe(0);
  });

  it(`refuses a document with more than ${max} mutation fields: 400 too_many_mutations, nothing runs`, async () => {
    const key = await ws.key({ scopes: ['webhooks:manage'] });
    const res = await api('POST', '/graphql', { app, key: key.value, body: testEvents(12, subId) });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions.code).toBe('too_many_mutations');
    expect(res.body.errors[0].message).toContain(`at most ${max} mutation fields`);
    expect(await queued()).toBe(0);
  });

  it('counts each mutation field as one request of the key’s allowance', async () => {
    const key = await ws.key({ scopes: ['webhooks:manage'] });
    await prisma.apiKey.update({ where: { id: key.record.id }, data: { requestsPerMinute: max + 1 } });
    const before = await queued();
    const first = await api('POST', '/graphql', { app, key: key.value, body: testEvents(max, subId) });
    expect(first.body.errors).toBeUndefined();
    expect(Object.keys(first.body.data)).toHaveLength(max);
    // The key had max + 1 requests; the first document took max of them, so one more field fits, two do not.
    const second = await api('POST', '/graphql', { app, key: key.value, body: testEvents(2, subId) });
    expect(second.status).toBe(429);
    expect(second.body.errors[0].extensions.code).toBe('rate_limited');
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await queued()).toBe(before + max);
  });
});
