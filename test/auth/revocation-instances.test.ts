// @vitest-environment postgres
// A revocation, sign-out, role change or deactivation made through one instance is refused at once by another (a second
// Node process on the same PostgreSQL database), although that one had the key and the session
// cached. This process never authenticates anything, so the only listener is the other one's.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWorkspace } from '../support/fixtures.ts';
import { apiKeyService } from '../../src/api-keys/api-key.service.ts';
import { sessionService } from '../../src/auth/session.service.ts';
import { roleService } from '../../src/users/role.service.ts';
import { peopleService } from '../../src/users/people.service.ts';
import { OPERATOR } from '../../src/audit/audit.writer.ts';

const root = path.resolve(import.meta.dirname, '../..');
/** Well under the 10 s the other instance would otherwise trust its cached entries. */
const AT_ONCE = { timeout: 5_000, interval: 100 };

async function startSecondInstance(): Promise<{ origin: string; child: ChildProcess }> {
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['test/auth/support/serve-app.ts'], {
    cwd: root,
    env: { ...process.env, SEED_DEMO: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the second instance exited with ${code}: ${output}`)));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening (\d+)/.exec(output);
      if (m) resolve(Number(m[1]));
    });
  });
  child.removeAllListeners('exit');
  return { origin: `http://127.0.0.1:${port}`, child };
}

describe('revocation across instances (PostgreSQL)', () => {
  let second: Awaited<ReturnType<typeof startSecondInstance>>;
  let admin: pg.Client;
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;

  beforeAll(async () => {
    ws = await createTestWorkspace('Revocation across instances');
    second = await startSecondInstance();
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
  }, 120_000);

  afterAll(async () => {
    second?.child.kill('SIGTERM');
    await admin?.end();
  });

  /** The second instance listens once it has authenticated something; a message sent before would be lost. */
  async function secondInstanceListens() {
    await expect
      .poll(
        async () =>
          (
            await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
              AND application_name = 'listen' AND state = 'idle' AND query LIKE 'LISTEN%'`)
          ).rowCount,
        { timeout: 20_000 },
      )
      .toBe(1);
  }

  it('refuses a key revoked through another instance at once', async () => {
    const key = await ws.key();
    const me = () => fetch(`${second.origin}/public/v1/me`, { headers: { authorization: `Bearer ${key.value}` } }).then((r) => r.status);
    expect(await me()).toBe(200);
    await secondInstanceListens();
    expect(await me()).toBe(200);

    await apiKeyService.revoke(ws.workspace.id, key.record.id);
    await expect.poll(me, AT_ONCE).toBe(401);
  });

  it('refuses a session ended through another instance at once', async () => {
    const { cookie, principal } = await sessionService.signIn({ email: ws.admin.email!, password: 'correct horse battery staple' });
    const viewer = () =>
      fetch(`${second.origin}/graphql?query=${encodeURIComponent('{ viewer { id } }')}`, { headers: { cookie: cookie.split(';')[0] } })
        .then((r) => r.json())
        .then((body) => body.data.viewer);
    expect(await viewer()).toEqual({ id: ws.admin.id });
    await secondInstanceListens();

    await sessionService.end(principal.sessionId);
    await expect.poll(viewer, AT_ONCE).toBeNull();
  });

  it('narrows a role’s boards for a key another instance has cached, at once', async () => {
    const [a, b] = ws.boards;
    const role = await roleService.create(ws.workspace.id, { name: `Both ${Date.now()}`, boardIds: [a.id, b.id] }, OPERATOR);
    const key = await ws.key({ role: role.id, scopes: ['boards:read'] });
    const board = () => fetch(`${second.origin}/public/v1/boards/${b.id}`, { headers: { authorization: `Bearer ${key.value}` } }).then((r) => r.status);
    expect(await board()).toBe(200);
    await secondInstanceListens();
    expect(await board()).toBe(200);

    await roleService.update(ws.workspace.id, role.id, { boardIds: [a.id] }, OPERATOR);
    await expect.poll(board, AT_ONCE).toBe(404);
  });

  it('stops a deactivated person’s session and keys on another instance at once', async () => {
    const { cookie } = await sessionService.signIn({ email: ws.admin.email!, password: 'correct horse battery staple' });
    const key = await ws.key();
    // A second administrator, so the first may be deactivated; the key is the first's (ws.key()).
    const other = await admin.query(`INSERT INTO "User" ("workspaceId", kind, "userName", "fullName", email, "roleId", "isAdmin", "updatedAt") VALUES ($1, 'human', 'second', 'Second', $2, $3, true, now()) RETURNING id`, [ws.workspace.id, `second-${ws.workspace.id}@example.test`, ws.roles.admin.id]);
    expect(other.rowCount).toBe(1);
    const viewer = () =>
      fetch(`${second.origin}/graphql?query=${encodeURIComponent('{ viewer { id } }')}`, { headers: { cookie: cookie.split(';')[0] } })
        .then((r) => r.json())
        .then((body) => body.data.viewer);
    const me = () => fetch(`${second.origin}/public/v1/me`, { headers: { authorization: `Bearer ${key.value}` } }).then((r) => r.status);
    expect(await viewer()).toEqual({ id: ws.admin.id });
    expect(await me()).toBe(200);
    await secondInstanceListens();

    await peopleService.setActive(null, ws.workspace.id, ws.admin.id, false, OPERATOR);
    await expect.poll(viewer, AT_ONCE).toBeNull();
    await expect.poll(me, AT_ONCE).toBe(401);
  });
});
