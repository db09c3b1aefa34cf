// "Administration without the UI" beside the real `npm start` on the embedded database: the CLI
// asks the running service (DATA_DIR/admin.sock), so the key it prints works at once, a revoked
// one stops at once, and both survive a restart; with no service it opens the database itself
// under the data directory's lock, also after the service was killed with SIGKILL. A second
// `npm start` on the same data directory refuses.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/http.ts';
import { copyMigratedPglite } from '../support/pglite-template.ts';
import { embeddedEnv, killStarted, npm, npmStart } from './npm-commands.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketing-cli-'));
// The service starts on the migrated embedded database (its first start is test/e2e/start.test.ts's).
copyMigratedPglite(dataDir);
const env = embeddedEnv(dataDir);
const cli = (...args: string[]) => npm(['run', '-s', 'cli', '--', ...args], env);

afterAll(() => {
  killStarted();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const KEY = /^svc_[A-Za-z0-9]{10}_[A-Za-z0-9_-]{43}$/;

/** The `keys list` row of the key with this id, split into its columns. */
async function listed(id: number): Promise<string[] | undefined> {
  const { code, stdout, stderr } = await cli('keys', 'list');
  expect(code, stderr).toBe(0);
  return stdout
    .split('\n')
    .map((line) => line.split(/ {2,}/))
    .find((cols) => cols[0] === String(id));
}

describe('npm run cli beside npm start on the embedded database', () => {
  it('creates, lists and revokes keys through the running service; they take effect at once and survive restarts', { timeout: 600_000 }, async () => {
    const ports = { http: await freePort(), temporal: await freePort(), ui: await freePort() };
    const me = async (key: string) => (await fetch(`http://127.0.0.1:${ports.http}/public/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status;
    async function create(name: string) {
      const { code, stdout, stderr } = await cli('keys', 'create', '--name', name, '--role', 'Agent', '--scopes', 'tickets:read,boards:read');
      expect(code, stderr).toBe(0);
      const key = stdout.trim().split('\n').at(-1)!;
      expect(key).toMatch(KEY);
      return { key, id: Number(/\(id (\d+),/.exec(stdout)![1]) };
    }

    const service = await npmStart(dataDir, ports);
    expect(fs.statSync(path.join(dataDir, 'admin.sock')).mode & 0o777).toBe(0o600);

    const kept = await create('Kept');
    const dropped = await create('Dropped');
    expect(await me(kept.key)).toBe(200);
    expect(await me(dropped.key)).toBe(200);
    expect(await listed(kept.id)).toEqual([String(kept.id), kept.key.slice(0, 14), 'Kept', 'Agent', 'tickets:read,boards:read', '-', expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d$/), '-']);

    const revoke = await cli('keys', 'revoke', '--id', String(dropped.id));
    expect(revoke.stdout.trim()).toBe(`Revoked API key ${dropped.id}.`);
    expect(await me(dropped.key)).toBe(401);
    expect((await listed(dropped.id))!.at(-1)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);

    // The running service answers for the migrations it applied at start-up.
    const migrate = await npm(['run', '-s', 'migrate'], env);
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(migrate.stdout).toMatch(/^database is up to date \(the running service, pid \d+, applied the migrations at start-up\)/);

    // A second service on the same data directory refuses, naming the first.
    const otherPorts = { http: await freePort(), temporal: await freePort(), ui: await freePort() };
    const second = await npm(['start'], embeddedEnv(dataDir, otherPorts));
    expect(second.code).not.toBe(0);
    expect(second.stderr).toMatch(new RegExp(`The embedded database in ${dataDir} is in use by \`npm start\` \\(pid \\d+\\); it serves one process at a time\\. Stop it first`));
    expect(await me(kept.key)).toBe(200);

    expect(await service.stop()).toBe(0);
    expect(fs.readdirSync(dataDir)).not.toContain('pglite.lock');
    expect(fs.readdirSync(dataDir)).not.toContain('admin.sock');

    // No service: the CLI opens the database itself and sees what the service wrote.
    expect((await listed(kept.id))?.[2]).toBe('Kept');

    const again = await npmStart(dataDir, ports);
    expect(again.out()).not.toContain('First run');
    expect(await me(kept.key)).toBe(200);
    expect(await me(dropped.key)).toBe(401);

    // Killed without a chance to clean up: the lock and the socket it leaves do not block.
    await again.kill();
    expect(fs.readdirSync(dataDir)).toContain('pglite.lock');
    const afterCrash = await cli('keys', 'create', '--name', 'After the crash', '--role', 'Viewer', '--scopes', 'tickets:read');
    expect(afterCrash.code, afterCrash.stderr).toBe(0);
    expect((await listed(kept.id))?.[2]).toBe('Kept');
  });
});
