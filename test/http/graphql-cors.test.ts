import { describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';

const OTHER_SITE = 'https://other-site.example';

describe('CORS on /graphql', () => {
  it('lets other sites call with an API key but never with credentials', async () => {
    const preflight = await api('OPTIONS', '/graphql', {
      headers: { origin: OTHER_SITE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(OTHER_SITE);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, X-Request-Id');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();

    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['tickets:read'] });
    const res = await api('POST', '/graphql', { key: key.value, headers: { origin: OTHER_SITE }, body: { query: '{ __typename }' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(OTHER_SITE);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-expose-headers')).toContain('RateLimit');
  });
});
