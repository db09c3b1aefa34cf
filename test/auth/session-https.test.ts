// Behind an https public base URL the session cookie is Secure and carries the __Host- prefix, the
// only origin that counts as our own is the public one, and /settings asks for HTTPS from then on.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/http/app.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';

loadConfig({ ...process.env, PUBLIC_BASE_URL: 'https://tickets.example.test/public/v1' });

const SIGN_IN = 'mutation($email: String!, $password: String!) { signIn(email: $email, password: $password) { id csrfToken } }';

describe('session cookie over https', () => {
  it('is Secure, __Host- prefixed, and read back under that name', async () => {
    const ws = await createTestWorkspace();
    const res = await api('POST', '/graphql', { body: { query: SIGN_IN, variables: { email: ws.admin.email, password: 'correct horse battery staple' } } });
    const [setCookie] = res.headers.getSetCookie();
    const [pair, ...attributes] = setCookie.split(';').map((a) => a.trim());
    expect(pair).toMatch(/^__Host-session=[A-Za-z0-9_-]{43}$/);
    expect(attributes.sort()).toEqual(['HttpOnly', 'Max-Age=604800', 'Path=/', 'SameSite=Lax', 'Secure']);

    const viewer = await api('GET', `/graphql?query=${encodeURIComponent('{ viewer { id } }')}`, { headers: { cookie: pair } });
    expect(viewer.body.data.viewer).toEqual({ id: ws.admin.id });
    // The public origin counts as our own, as it does behind a TLS-terminating proxy.
    const fromPublicOrigin = await api('POST', '/graphql', {
      body: { query: '{ viewer { id } }' },
      headers: { cookie: pair, origin: 'https://tickets.example.test', 'x-csrf-token': res.body.data.signIn.csrfToken },
    });
    expect(fromPublicOrigin.body.data.viewer).toEqual({ id: ws.admin.id });
  });

  it('refuses an Origin that only the Host header names (the request says where it went; PUBLIC_BASE_URL is where we are)', async () => {
    const ws = await createTestWorkspace();
    const res = await api('POST', '/graphql', { body: { query: SIGN_IN, variables: { email: ws.admin.email, password: 'correct horse battery staple' } } });
    const [pair] = res.headers.getSetCookie()[0].split(';');
    // The request went to http://localhost (its Host), and the Origin names that same origin.
    const viaHost = await api('POST', '/graphql', {
      body: { query: '{ viewer { id } }' },
      headers: { cookie: pair, origin: 'http://localhost', 'x-csrf-token': res.body.data.signIn.csrfToken },
    });
    expect(viaHost.status).toBe(403);
    expect(viaHost.body.errors[0].extensions.code).toBe('csrf_failed');
  });

  it('serves /settings with HSTS', async () => {
    const page = await createApp().fetch(new Request('http://localhost/settings/'));
    expect(page.headers.get('strict-transport-security')).toMatch(/^max-age=\d{7,}/);
  });
});
