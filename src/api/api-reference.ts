// The API reference at /public/v1/docs: Scalar (@scalar/api-reference) rendering the served
// OpenAPI document, embedded in the page (so a view is two requests: the page and the cached
// bundle). Everything comes from this server: no CDN, no fonts, no Scalar services (its test
// request client, proxy, telemetry, agent and MCP integrations are off), enforced by the CSP.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
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
  mcp: { disabled: true },
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
 * The bundle (4.3 MB) never becomes a JavaScript string: uncompressed answers stream from the
 * file, and the gzip form (~1 MB) is kept as a Buffer, outside the V8 heap. Both, and the ETag,
 * are made once, on first use.
 */
interface Bundle {
  etag: string;
  gzip: Buffer;
  size: number;
}
let bundle: Promise<Bundle> | undefined;
function loadBundle(): Promise<Bundle> {
  bundle ??= (async () => {
    const raw = await fs.promises.readFile(BUNDLE_FILE);
    const etag = `"${createHash('sha256').update(raw).digest('base64url').slice(0, 27)}"`;
    const gzip = await promisify(zlib.gzip)(raw, { level: 9 });
    return { etag, gzip, size: raw.length };
  })();
  bundle.catch(() => (bundle = undefined));
  return bundle;
}

export function createApiReference(documentJson: string, title: string, assetPath: string) {
  const { version } = JSON.parse(fs.readFileSync(`${SCALAR_DIR}/package.json`, 'utf8')) as { version: string };
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

  return {
    page: () => new Response(page, { headers: pageHeaders }),

    async asset(request: Request): Promise<Response> {
      const { etag, gzip, size } = await loadBundle();
      const headers: Record<string, string> = {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': 'public, max-age=31536000, immutable',
        ETag: etag,
        Vary: 'Accept-Encoding',
        'X-Content-Type-Options': 'nosniff',
      };
      if ((request.headers.get('if-none-match') ?? '').includes(etag)) return new Response(null, { status: 304, headers });
      if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
        // The Buffer itself, not a copy (its memory is a plain ArrayBuffer; the type cannot say so).
        return new Response(gzip as Uint8Array<ArrayBuffer>, {
          headers: { ...headers, 'Content-Encoding': 'gzip', 'Content-Length': String(gzip.length) },
        });
      }
      const stream = Readable.toWeb(fs.createReadStream(BUNDLE_FILE)) as ReadableStream<Uint8Array>;
      return new Response(stream, { headers: { ...headers, 'Content-Length': String(size) } });
    },
  };
}
