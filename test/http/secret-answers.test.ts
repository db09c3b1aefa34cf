// Answers that carry a secret (a new API key's value, a subscription's signing secret when it is
// made or rotated) are never stored by a cache on the way: Cache-Control: no-store.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';

const URL_OK = 'https://93.184.216.34/ticketing';

describe('answers that carry a secret', () => {
  let key: string;

  beforeAll(async () => {
    const ws = await createTestWorkspace();
    key = (await ws.key({ scopes: ['webhooks:manage'] })).value;
  });

  it('REST: creating a subscription and rotating its secret answer no-store', async () => {
    const created = await api('POST', '/webhooks', { key, body: { url: URL_OK, events: ['ticket.created'] } });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const rotated = await api('POST', `/webhooks/${created.body.id}/rotate-secret`, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.text).toContain('whsec_');
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    // A read carries no secret and keeps the default.
    expect((await api('GET', `/webhooks/${created.body.id}`, { key })).headers.get('cache-control')).toBeNull();
  });

  it('GraphQL: every answer is no-store (createApiKey and createWebhookSubscription answer secrets there)', async () => {
    const res = await api('POST', '/graphql', {
      key,
      body: {
        query: 'mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id secret } }',
        variables: { input: { url: URL_OK, events: ['ticket.created'] } },
      },
    });
    expect(res.body.data.createWebhookSubscription.secret).toMatch(/^whsec_/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
