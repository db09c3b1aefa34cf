// The settings UI's scripts and styles as a browser fetches them: the build's Brotli or gzip file
// when the browser accepts one (the same bytes once decoded), the file itself otherwise, cached for
// good; nothing else from the assets directory (not the compressed files by name, no traversal).
import zlib from 'node:zlib';
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsUi } from '../../src/http/settings-ui.ts';

const app = new Hono().route('/settings', settingsUi());
let script: string;
let style: string;

beforeAll(async () => {
  const { ensureWebBuild } = await import('../../web/build.ts');
  await ensureWebBuild({ quiet: true });
  const page = await (await app.request('/settings/')).text();
  script = /<script[^>]+src="(\/settings\/assets\/[^"]+\.js)"/.exec(page)![1]!;
  style = /<link[^>]+href="(\/settings\/assets\/[^"]+\.css)"/.exec(page)![1]!;
}, 120_000);

const get = (path: string, acceptEncoding?: string) => app.request(path, { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });

describe('settings UI assets', () => {
  it('sends the Brotli file to a browser that takes it, else gzip, else the file itself: the same script', async () => {
    const plain = await get(script);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const original = Buffer.from(await plain.arrayBuffer());
    expect(original.length).toBeGreaterThan(100_000);

    const br = await get(script, 'gzip, deflate, br, zstd');
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    expect(br.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const brBody = Buffer.from(await br.arrayBuffer());
    expect(brBody.length).toBeLessThan(original.length / 3);
    expect(zlib.brotliDecompressSync(brBody).equals(original)).toBe(true);

    const gz = await get(script, 'gzip');
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(zlib.gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(original)).toBe(true);

    for (const res of [plain, br, gz]) {
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it("is React's production build, though the tests (NODE_ENV=test) built it", async () => {
    const text = await (await get(script)).text();
    expect(text).not.toContain('jsxDEV'); // the development JSX runtime: hundreds of calls there
    expect(text).toContain('createRoot');
  });

  it('compresses the styles too', async () => {
    const res = await get(style, 'br');
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(zlib.brotliDecompressSync(Buffer.from(await res.arrayBuffer())).toString()).toContain('{');
  });

  it('serves nothing else from the assets directory', async () => {
    for (const path of [`${script}.br`, `${script}.gz`, '/settings/assets/nothing-here.js', '/settings/assets/..%2Findex.html', '/settings/assets/.inputs-sha256']) {
      const res = await get(path, 'br');
      expect(res.status, path).toBe(404);
      expect(res.headers.get('cache-control'), path).toBeNull();
    }
  });
});
