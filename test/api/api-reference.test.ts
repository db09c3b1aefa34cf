// The API reference at /public/v1/docs: Scalar's page with the served document embedded, and
// Scalar's bundle from our own server (cached for good, compressed once), under a CSP that lets
// nothing else in. That it renders is test/ui/api-reference.test.ts.
import fs from 'node:fs';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { api } from '../support/fixtures.ts';
import { createApp } from '../../src/http/app.ts';
import { fromRoot } from '../../src/paths.ts';

const BUNDLE = fromRoot('node_modules', '@scalar', 'api-reference', 'dist', 'browser', 'standalone.js');
const app = createApp();
const get = (path: string, headers: Record<string, string> = {}) => app.fetch(new Request(`http://localhost${path}`, { headers }));

describe('GET /public/v1/docs', () => {
  it('answers, without a key, a page that embeds the served document and loads Scalar from this server', async () => {
    const res = await api('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<title>Ticketing Service Public API 1.0.0: reference</title>');
    const embedded = /<script id="api-reference" type="application\/json" data-configuration="([^"]*)">([^<]*)<\/script>/.exec(res.text);
    expect(embedded).not.toBeNull();
    expect(JSON.parse(embedded![2])).toEqual((await api('GET', '/openapi.json')).body);
    const configuration = JSON.parse(embedded![1].replaceAll('&quot;', '"').replaceAll('&amp;', '&'));
    expect(configuration).toMatchObject({ hideClientButton: true, hideTestRequestButton: true, withDefaultFonts: false, telemetry: false });
    expect(configuration.proxyUrl).toBeUndefined();
    const scripts = [...res.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual([expect.stringMatching(/^\/public\/v1\/docs\/assets\/scalar\.js\?v=\d+\.\d+\.\d+$/)]);
  });

  it('lets only this server’s scripts run, no eval, and nothing be fetched elsewhere', async () => {
    const csp = (await api('GET', '/docs')).headers.get('content-security-policy')!;
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/https?:/);
  });
});

describe('GET /public/v1/docs/assets/scalar.js', () => {
  const file = fs.readFileSync(BUNDLE);

  it('serves Scalar’s standalone bundle byte for byte, cacheable for good, gzipped when asked', async () => {
    const plain = await get('/public/v1/docs/assets/scalar.js');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await plain.arrayBuffer()).equals(file)).toBe(true);

    const gzipped = await get('/public/v1/docs/assets/scalar.js', { 'accept-encoding': 'gzip, br' });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    const compressed = Buffer.from(await gzipped.arrayBuffer());
    expect(compressed.length).toBeLessThan(file.length / 2);
    expect(zlib.gunzipSync(compressed).equals(file)).toBe(true);
  });

  it('answers 304 to a request that holds its ETag', async () => {
    const etag = (await get('/public/v1/docs/assets/scalar.js')).headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await get('/public/v1/docs/assets/scalar.js', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });
});
