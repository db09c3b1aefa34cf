// The chaos test's receivers serve HTTPS with a certificate from a test CA (test/webhooks/receiver.ts
// makes it with openssl). It is kept under .data/cluster/chaos/ so that the app processes, which
// trust it through NODE_EXTRA_CA_CERTS, stay valid across runs; it is remade when a day old (the
// certificates last three).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createTestCa, type TestCa } from '../../test/webhooks/receiver.ts';
import { caFile } from './env.ts';

const dir = path.dirname(caFile);
const files = { ca: caFile, key: path.join(dir, 'server.key'), cert: path.join(dir, 'server.pem') };
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** The CA and the receivers' certificate; `remade` when this call made them (running apps trust the old CA). */
export function chaosCa(): { tls: TestCa; remade: boolean } {
  const fresh = Object.values(files).every((f) => existsSync(f)) && Date.now() - statSync(caFile).mtimeMs < MAX_AGE_MS;
  if (!fresh) {
    mkdirSync(dir, { recursive: true });
    const made = createTestCa();
    writeFileSync(files.key, made.key, { mode: 0o600 });
    writeFileSync(files.cert, made.cert);
    writeFileSync(files.ca, made.ca);
  }
  const tls = { ca: readFileSync(files.ca, 'utf8'), key: readFileSync(files.key, 'utf8'), cert: readFileSync(files.cert, 'utf8') };
  return { tls, remade: !fresh };
}
