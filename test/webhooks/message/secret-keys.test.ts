// The keys that encrypt webhook signing secrets, with services running: a process seals under the
// key the key file names first now (another process may have just rotated it), and the service
// refuses to start when stored secrets name a key it does not have, creating nothing, or, in
// production, when WEBHOOK_SECRET_KEYS is not set.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { newId } from '../../../src/ids.ts';
import { parseConfig } from '../../../src/config.ts';
import { repoRoot } from '../../../src/paths.ts';
import { KeyRing, newSecretKeys, productionKeysMissing, sealSecret, secretKeys } from '../../../src/webhooks/message/secret-box.ts';
import { secretRepository } from '../../../src/webhooks/subscriptions/secret.repository.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secret-keys-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('webhook secret keys', () => {
  it('a running process seals under the key another process has just put first in the key file', () => {
    const file = path.join(dir, 'rotating-keys');
    const service = new KeyRing(undefined, file);
    const first = service.current();
    // `secrets reencrypt` in another process: a new key first in the file.
    const rotated = new KeyRing(undefined, file).addKey();
    expect(rotated.id).not.toBe(first.id);
    expect(service.current().id).toBe(rotated.id);
    expect(sealSecret('whsec_x', { subscriptionId: 'wh_x', column: 'secret' }, service.current()).split('.')[1]).toBe(rotated.id);
  });

  // The first call loads the whole app: on a busy machine that alone can take most of the default 30 s.
  it('refuses to start when a stored secret names a key the service does not have, and creates no key file', { timeout: 120_000 }, async () => {
    const ws = await createTestWorkspace('Missing key');
    const row = await prisma.webhookSubscription.create({
      data: { id: newId('wh'), workspaceId: ws.workspace.id, createdById: ws.admin.id, url: 'https://93.184.216.34/', events: ['ticket.created'], secret: 'enc2.kmissing0.wh_x.secret.AAAAAAAAAAAAAAAA.AAAA' },
    });
    try {
      // The key file is gone (a DATA_DIR restored without it): nothing is made anew.
      const gone = path.join(dir, 'gone-keys');
      await expect(secretRepository.assertKeysPresent(new KeyRing(undefined, gone))).rejects.toThrow(/kmissing0.*gone-keys/s);
      expect(fs.existsSync(gone)).toBe(false);
      // A key file (or WEBHOOK_SECRET_KEYS) without that key.
      const other = new KeyRing(undefined, path.join(dir, 'other-keys'));
      other.current();
      await expect(secretRepository.assertKeysPresent(other)).rejects.toThrow(/kmissing0/);
      // With the key listed (and the keys of the other rows of the table), it starts.
      const listed = new KeyRing([{ id: 'kmissing0', key: Buffer.alloc(32) }, ...secretKeys.all()], path.join(dir, 'unused'));
      await expect(secretRepository.assertKeysPresent(listed)).resolves.toBeUndefined();
    } finally {
      await prisma.webhookSubscription.delete({ where: { id: row.id } });
    }
  });

  it('in production requires WEBHOOK_SECRET_KEYS: no key file is read or made, and the api and worker refuse to start saying so', { timeout: 180_000 }, async () => {
    const production = parseConfig({ NODE_ENV: 'production', DATA_DIR: dir });
    const refusal = productionKeysMissing(production);
    expect(refusal).toMatch(/^NODE_ENV=production needs WEBHOOK_SECRET_KEYS: .*id:base64 of 32 bytes.*openssl rand -base64 32/);
    expect(productionKeysMissing(parseConfig({ NODE_ENV: 'production', DATA_DIR: dir, WEBHOOK_SECRET_KEYS: newSecretKeys() }))).toBeUndefined();
    expect(productionKeysMissing(parseConfig({ NODE_ENV: 'development', DATA_DIR: dir }))).toBeUndefined();
    // A process in production without them (the CLI's `secrets reencrypt` too) neither seals nor opens with a key file of its own.
    const file = path.join(dir, 'production-keys');
    const ring = new KeyRing(undefined, file, refusal);
    expect(() => ring.current()).toThrow(/needs WEBHOOK_SECRET_KEYS/);
    expect(() => ring.addKey()).toThrow(/needs WEBHOOK_SECRET_KEYS/);
    expect(fs.existsSync(file)).toBe(false);

    // `npm start -- api|worker` in production without the keys: exit 1 with the message, before touching the database or Temporal.
    const env: NodeJS.ProcessEnv = {
      ...process.env, NODE_ENV: 'production', DATABASE_URL: 'postgresql://ticketing:x@127.0.0.1:9/none', TEMPORAL_ADDRESS: '127.0.0.1:9', DATA_DIR: path.join(dir, 'service'), LOG_LEVEL: 'silent',
    };
    delete env.WEBHOOK_SECRET_KEYS;
    const start = (role: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', role], { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
        child.on('exit', (code) => {
          clearTimeout(timer);
          resolve({ code, stderr });
        });
      });
    for (const run of await Promise.all([start('api'), start('worker')])) {
      expect(run.stderr).toContain('Start-up failed: NODE_ENV=production needs WEBHOOK_SECRET_KEYS');
      expect(run.code).toBe(1);
    }
  });
});
