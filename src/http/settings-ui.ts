// The settings UI (web/, built by Vite into web/dist) under /settings: hashed assets cached for
// good (compressed at build time), and index.html for every other path below /settings
// (client-side routes such as /settings/webhooks/wh_…, the link of a paused-subscription notice).
// The UI talks to /graphql.
import fs from 'node:fs/promises';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { fromRoot } from '../paths.ts';
import { config } from '../config.ts';

const distDir = fromRoot('web', 'dist');
/** Vite names assets `<name>-<hash>.<ext>`: nothing else is served from assets/ (not the .br and .gz beside them). */
const ASSET_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(js|css|map|svg|png|woff2)$/;

const pageHeaders = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  // Scripts and styles come from our own build only; the page may be framed by nobody.
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** A year, as browsers' preload lists ask: once a browser has seen the page over HTTPS it never asks over plain HTTP. */
const HSTS = 'max-age=31536000';

/** The page's headers; HSTS when the service is served over HTTPS (PUBLIC_BASE_URL, also behind a TLS-terminating proxy). */
const headersOfPage = (): Record<string, string> =>
  new URL(config.http.publicBaseUrl).protocol === 'https:' ? { ...pageHeaders, 'Strict-Transport-Security': HSTS } : pageHeaders;

const notBuilt = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Settings</title>
<p>The settings UI is not built yet. <code>npm start</code> builds it; or run <code>npx tsx web/build.ts</code> and reload.</p></html>`;

async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(file);
  } catch {
    return null;
  }
}

export function settingsUi(root = distDir) {
  const app = new Hono();
  app.get('/assets/:file', async (c) => {
    const name = c.req.param('file');
    if (!ASSET_NAME.test(name)) return c.text('Not found', 404);
    // The file streamed from disk; its build-time .br or .gz instead when the browser takes it
    // (web/build.ts writes them beside the scripts and styles; Content-Encoding and Vary are set).
    const serve = serveStatic({ path: path.join(root, 'assets', name), precompressed: true });
    const res = await serve(c, async () => undefined);
    if (!res) return c.text('Not found', 404);
    res.headers.set('Cache-Control', 'public, max-age=31536000, immutable');
    res.headers.set('X-Content-Type-Options', 'nosniff');
    return res;
  });
  app.get('*', async (c) => {
    const page = await readOrNull(path.join(root, 'index.html'));
    if (!page) return c.body(notBuilt, 503, headersOfPage());
    return c.body(new Uint8Array(page), 200, headersOfPage());
  });
  return app;
}
