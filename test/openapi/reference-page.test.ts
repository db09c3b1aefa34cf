// The readable API reference at /public/v1/docs: public, self-contained, and covering every
// operation of the document.
import { describe, expect, it } from 'vitest';
import { api } from '../support/fixtures.ts';
import { routes } from '../../src/rest/routes.ts';
import { errorTable } from '../../src/errors/errors.ts';

describe('GET /public/v1/docs', () => {
  it('answers an HTML page without a key', async () => {
    const res = await api('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(res.text).toContain('<title>Ticketing Service Public API 1.0.0: reference</title>');
  });

  it('shows every operation: its method, path, operationId, summary and each documented status', async () => {
    const { text } = await api('GET', '/docs');
    const { body: doc } = await api('GET', '/openapi.json');
    for (const route of routes) {
      const section = new RegExp(`<section class="operation" id="op-${route.operationId}"[^]*?</section>`).exec(text)?.[0];
      expect(section, route.operationId).toBeDefined();
      expect(section).toContain(`<span class="method">${route.method}</span> <code>${route.path}</code>`);
      expect(section).toContain(`<code>${route.operationId}</code>`);
      expect(text).toContain(`<a href="#op-${route.operationId}"><code>${route.method} ${route.path}</code></a>`);
      for (const status of Object.keys(doc.paths[route.path][route.method.toLowerCase()].responses)) {
        expect(section, `${route.operationId} ${status}`).toContain(`<span class="status">${status}</span>`);
      }
    }
  });

  it('lists the scopes of an operation, its parameters, and the members of its bodies', async () => {
    const { text } = await api('GET', '/docs');
    const createTicket = /<section class="operation" id="op-createTicket"[^]*?<\/section>/.exec(text)![0];
    expect(createTicket).toContain('<dt>Scopes (any one)</dt><dd><code>tickets:write</code></dd>');
    expect(createTicket).toContain('<th scope="row"><code>Idempotency-Key</code></th><td>header</td>');
    expect(createTicket).toContain('<code class="name">requesterEmail</code> <span class="type">string, required, format email');
    expect(createTicket).toContain('<code class="name">channel</code>');
    const getMe = /<section class="operation" id="op-getMe"[^]*?<\/section>/.exec(text)![0];
    expect(getMe).toContain('<dd>none: any valid key</dd>');
  });

  it('explains every error code and response header', async () => {
    const { text } = await api('GET', '/docs');
    for (const code of Object.keys(errorTable).filter((c) => !['unauthenticated', 'csrf_failed', 'invalid_request', 'query_too_complex'].includes(c))) {
      expect(text, code).toContain(`<th scope="row"><code>${code}</code></th>`);
    }
    for (const header of ['X-Request-Id', 'RateLimit-Policy', 'RateLimit', 'Retry-After', 'Idempotent-Replayed', 'Link', 'WWW-Authenticate']) {
      expect(text, header).toContain(`id="header-${header}"`);
    }
  });

  it('loads nothing: no script, no external stylesheet, image or font, and a CSP that forbids them', async () => {
    const res = await api('GET', '/docs');
    expect(res.text).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    // Every in-page link points at an anchor the page has.
    const ids = new Set([...res.text.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    for (const [, target] of res.text.matchAll(/href="#([^"]+)"/g)) expect(ids.has(target), target).toBe(true);
  });
});
