// The configuration is read on first use, never when a module is imported: a test (or any caller)
// can import the service and then hand in its own environment with loadConfig(env).
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
// Entry points act when imported (they start the service, run a command, claim the data directory).
const ENTRY_POINTS = new Set(['src/main.ts', 'src/cli.ts', 'src/admin/claim-data-dir.ts']);

it('importing every module of src/ and workflows/ reads no configuration', { timeout: 180_000 }, async () => {
  const files = ['src', 'workflows']
    .flatMap((dir) => fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' }).map((f) => `${dir}/${f.split(path.sep).join('/')}`))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('src/generated/') && !ENTRY_POINTS.has(f));
  expect(files.length).toBeGreaterThan(50);
  for (const file of files) await import(path.join(root, file));

  const { config, loadConfig } = await import('../../src/config.ts');
  loadConfig({ ...process.env, DEFAULT_REQUESTS_PER_MINUTE: '7', PUBLIC_BASE_URL: 'https://example.test/public/v1' });
  expect(config.limits.requestsPerMinute).toBe(7);
  expect(config.http.publicBaseUrl).toBe('https://example.test/public/v1');
  // Once read, the configuration stays: a second one would leave modules disagreeing.
  expect(() => loadConfig(process.env)).toThrow(/already read/);
});
