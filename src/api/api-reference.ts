// The API reference at /public/v1/docs: Scalar (@scalar/api-reference) rendering the served
// OpenAPI document, embedded in the page (so a view is two requests: the page and the cached
// bundle). Everything comes from this server: no CDN, no fonts, no Scalar services (its test
// request client, proxy, telemetry and agent integrations are off), enforced by the CSP. Pinned to
// 1.46.4, the last release that declares Node 20 support (later ones ask for Node 22; it has no
// MCP integration yet).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { etag } from 'hono/etag';
import { fromRoot } from '../paths.ts';

const SCALAR_DIR = fromRoot('node_modules', '@scalar', 'api-reference');
const BUNDLE_FILE = `${SCALAR_DIR}/dist/browser/standalone.js`;

/** Scalar's options (@scalar/types, api-reference-configuration): read-only, and nothing that calls out. */
const SCALAR_CONFIGURATION = {
  hideClientButton: true,
  hideTestRequestButton: true,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: 'never',
  documentDownloadType: 'json',
};

/**
 * Scalar writes its styles into <style> elements at run time, hence `'unsafe-inline'` for styles
 * (not for scripts: no inline script runs, and no `eval`). Images may be data: URIs (icons).
 */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeAttribute = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The bundle (4.3 MB) and its gzip form (~1 MB) under dist/scalar/<version>/, made once per
 * Scalar version (by `npm run build`, or by the first server without it) and streamed from disk
 * by serveStatic like the settings UI's assets; its ETag is a hash of the bundle. No Brotli
 * form: the gzip one is what the tests and browsers have always been sent.
 */
export function scalarAssets(version: string): { file: string; etag: string } {
  const file = fromRoot('dist', 'scalar', version, 'standalone.js');
  const etagFile = `${file}.etag`;
  if (!fs.existsSync(etagFile)) {
    const raw = fs.readFileSync(BUNDLE_FILE);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeWhole(file, raw);
    writeWhole(`${file}.gz`, zlib.gzipSync(raw, { level: 9 }));
    // Last: its presence says the other two are whole.
    writeWhole(etagFile, Buffer.from(`"${createHash('sha256').update(raw).digest('base64url').slice(0, 27)}"`));
  }
  return { file, etag: fs.readFileSync(etagFile, 'utf8') };
}

/** Written beside, then renamed: a request, or another process making the same file, never reads half a file. */
function writeWhole(file: string, body: Buffer) {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, body);
  fs.renameSync(temp, file);
}

export const scalarVersion = (): string => (JSON.parse(fs.readFileSync(`${SCALAR_DIR}/package.json`, 'utf8')) as { version: string }).version;

export function createApiReference(documentJson: string, title: string, assetPath: string) {
  const version = scalarVersion();
  // The asset URL names Scalar's version, so a new version is a new URL and the bundle may be cached for good.
  const scriptUrl = `${assetPath}?v=${version}`;
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeAttribute(title)}</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript>This reference needs JavaScript. The OpenAPI document itself is at <a href="openapi.json">openapi.json</a>.</noscript>
<script id="api-reference" type="application/json" data-configuration="${escapeAttribute(JSON.stringify(SCALAR_CONFIGURATION))}">${documentJson.replace(/</g, '\\u003c')}</script>
<script src="${scriptUrl}"></script>
</body>
</html>
`;
  const pageHeaders = {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-cache',
    'Content-Security-Policy': PAGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };

  const bundle = scalarAssets(version);
  // serveStatic sends the .gz to a client that takes gzip; hono's etag() answers 304 to the ETag set here.
  const assets = new Hono().get('*', etag(), async (c) => {
    const res = await serveStatic({ path: bundle.file, precompressed: true })(c, async () => undefined);
    if (!res) return c.text('Not found', 404);
    res.headers.set('Cache-Control', 'public, max-age=31536000, immutable');
    res.headers.set('ETag', bundle.etag);
    res.headers.set('X-Content-Type-Options', 'nosniff');
    return res;
  });

  return {
    page: () => new Response(page, { headers: pageHeaders }),
    asset: (request: Request) => assets.fetch(request),
  };
}
