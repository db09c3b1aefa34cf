// Builds the settings UI into web/dist when its inputs changed since the last build: `npm start`
// runs it first (prestart), the UI tests call ensureWebBuild(). Freshness is a hash of the inputs
// (sources, index.html, Vite config, lockfile), not file times, which a fresh clone resets.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const webRoot = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(webRoot, '..');
export const distDir = path.join(webRoot, 'dist');
const stampFile = path.join(distDir, '.inputs-sha256');

function inputFiles(): string[] {
  const files = [path.join(webRoot, 'index.html'), path.join(webRoot, 'vite.config.ts'), path.join(webRoot, 'build.ts'), path.join(repoRoot, 'package-lock.json')];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(full);
    }
  };
  walk(path.join(webRoot, 'src'));
  return files.sort();
}

function inputsHash(): string {
  const hash = crypto.createHash('sha256');
  for (const file of inputFiles()) {
    hash.update(path.relative(repoRoot, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Builds unless web/dist was built from exactly these inputs. Returns whether it built. */
export async function ensureWebBuild({ quiet = false } = {}): Promise<boolean> {
  const hash = inputsHash();
  const built = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : '';
  if (built === hash && fs.existsSync(path.join(distDir, 'index.html'))) return false;
  const { build } = await import('vite');
  // Always a production build: Vite takes the shell's NODE_ENV, and vitest's (test) made the UI
  // tests build React's development bundle (815 kB, not 562), which `npm start` then served as it
  // was, the sources being unchanged.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: path.join(webRoot, 'vite.config.ts'), logLevel: quiet ? 'warn' : 'info' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  compressAssets();
  fs.writeFileSync(stampFile, `${hash}\n`);
  return true;
}

/**
 * A .br and a .gz beside every script, style and SVG of web/dist/assets, at the best levels (once
 * per build): the service sends one of them to a browser that accepts it (src/http/settings-ui.ts).
 * The main script goes from about 560 to 180 kB with gzip, less with Brotli.
 */
function compressAssets() {
  const assets = path.join(distDir, 'assets');
  for (const name of fs.readdirSync(assets)) {
    if (!/\.(js|css|svg)$/.test(name)) continue;
    const file = path.join(assets, name);
    let body: Buffer;
    try {
      body = fs.readFileSync(file);
    } catch {
      continue; // another build (two test files at once on a fresh clone) emptied the directory: it compresses its own
    }
    const params = { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length };
    writeWhole(`${file}.br`, zlib.brotliCompressSync(body, { params }));
    writeWhole(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
  }
}

/** Written beside, then renamed: a request never reads half a file. */
function writeWhole(file: string, body: Buffer) {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, body);
  fs.renameSync(temp, file);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes('--force');
  if (force) fs.rmSync(stampFile, { force: true });
  const built = await ensureWebBuild();
  if (!built) console.log('Settings UI: web/dist is up to date.');
}
