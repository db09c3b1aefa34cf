import { describe, expect, it, beforeAll } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { apiKeyService } from '../../src/api-keys/api-key.service.ts';

describe('GET /public/v1/me', () => {
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  beforeAll(async () => {
    ws = await createTestWorkspace();
  });

  it('answers exactly the spec shape for a valid key', async () => {
    const key = await ws.key({ name: 'Zapier sync', scopes: ['tickets:read', 'tickets:write'], role: ws.roles.agent.id });
    const res = await api('GET', '/me', { key: key.value });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const { apiKey, serviceUser, workspace, limits, ...rest } = res.body;
    expect(rest).toEqual({});
    expect(apiKey).toEqual({ id: key.record.id, name: 'Zapier sync', prefix: key.record.prefix, scopes: ['tickets:read', 'tickets:write'] });
    expect(apiKey.prefix).toMatch(/^svc_[A-Za-z0-9]{10}$/);
    expect(key.value.startsWith(apiKey.prefix + '_')).toBe(true);
    expect(res.text).not.toContain(key.value.slice(apiKey.prefix.length + 1));
    expect(serviceUser).toEqual({
      id: key.record.serviceUserId,
      userName: expect.stringMatching(/^svc-/),
      fullName: 'Zapier sync (API key)',
      roleId: ws.roles.agent.id,
    });
    expect(serviceUser.id).not.toBe(ws.admin.id);
    expect(workspace).toEqual({ domain: ws.workspace.domain, name: ws.workspace.name });
    expect(limits).toEqual({ requestsPerMinute: 600, maxWebhookSubscriptions: 10 });
  });

  it('gives every key its own service account', async () => {
    const a = await ws.key();
    const b = await ws.key();
    const [ra, rb] = await Promise.all([api('GET', '/me', { key: a.value }), api('GET', '/me', { key: b.value })]);
    expect(ra.body.serviceUser.id).not.toBe(rb.body.serviceUser.id);
    expect(ra.body.apiKey.id).not.toBe(rb.body.apiKey.id);
  });

  it('does not store the key value', async () => {
    const key = await ws.key();
    expect(key.record.secretHash).not.toContain(key.value);
    expect(key.record.secretHash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('401 for missing, malformed, unknown, revoked or expired keys', () => {
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  beforeAll(async () => {
    ws = await createTestWorkspace();
  });

  async function expect401(headers: Record<string, string>) {
    const res = await api('GET', '/me', { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(res.body).toMatchObject({ status: 401, code: 'invalid_token', type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    return res;
  }

  it('missing Authorization header', async () => {
    await expect401({});
  });

  it('not a Bearer scheme', async () => {
    const key = await ws.key();
    await expect401({ authorization: `Basic ${Buffer.from(key.value).toString('base64')}` });
  });

  it('malformed token', async () => {
    await expect401({ authorization: 'Bearer svc_short' });
    await expect401({ authorization: 'Bearer ' });
    await expect401({ authorization: 'Bearer a b' });
  });

  it('unknown key of the right shape', async () => {
    const key = await ws.key();
    const forged = key.value.slice(0, -4) + (key.value.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expect401({ authorization: `Bearer ${forged}` });
    await expect401({ authorization: `Bearer svc_ZZZZZZZZZZ_${'x'.repeat(43)}` });
  });

  it('revoked key', async () => {
    const key = await ws.key();
    expect((await api('GET', '/me', { key: key.value })).status).toBe(200);
    await apiKeyService.revoke(ws.workspace.id, key.record.id);
    await expect401({ authorization: `Bearer ${key.value}` });
  });

  it('expired key', async () => {
    const key = await ws.key({ expiresAt: new Date(Date.now() + 1500) });
    expect((await api('GET', '/me', { key: key.value })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const res = await expect401({ authorization: `Bearer ${key.value}` });
    expect(res.body.detail).toMatch(/expired/);
  });

  it('never leaks a stack trace', async () => {
    const res = await expect401({ authorization: `Bearer svc_../../etc/passwd'"<script>${'A'.repeat(5000)}` });
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe('problem+json for unknown endpoints and methods', () => {
  it('404 for an unknown path, 405 with Allow for a wrong method', async () => {
    const nf = await api('GET', '/nope');
    expect(nf.status).toBe(404);
    expect(nf.body.code).toBe('not_found');
    const na = await api('DELETE', '/me');
    expect(na.status).toBe(405);
    expect(na.headers.get('allow')).toBe('GET');
    expect(na.body.code).toBe('method_not_allowed');
  });
});
