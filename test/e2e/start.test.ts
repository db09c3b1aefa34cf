// The README's start command, for real: `npm start` (build, then the bundle on plain node with
// the production heap flags) on embedded defaults (PGlite, a local Temporal dev server),
// first-run seeding, /readyz 200 as soon as the banner is out, GET /me over a real port. npm
// passes SIGTERM on to the service. Restarts on the same data directory: test/e2e/cli.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/http.ts';
import { killStarted, npmStart, type Ports } from './npm-commands.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketing-start-'));
const start = (ports: Ports) => npmStart(dataDir, ports);

afterAll(killStarted);

describe('npm start on embedded defaults', () => {
  it('seeds a demo workspace on the first start and prints a key that works', { timeout: 360_000 }, async () => {
    const ports = { http: await freePort(), temporal: await freePort(), ui: await freePort() };
    const first = await start(ports);
    // The banner comes once every readiness check passes: the worker's first connection included.
    const ready = await fetch(`http://127.0.0.1:${ports.http}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', temporal: 'ok', worker: 'ok' } });
    expect(ready.status).toBe(200);
    const banner = first.out();
    expect(banner).toContain('First run: created the demo workspace.');
    expect(banner).toContain(`Temporal Web: http://127.0.0.1:${ports.ui}`);
    expect(banner).toMatch(/Administrator sign-in: admin@example\.com \/ \S+/);
    const key = /API key \(shown once, every scope\): (svc_\S+)/.exec(banner)![1];

    const me = await fetch(`http://127.0.0.1:${ports.http}/public/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    const body = await me.json();
    expect(body.apiKey.scopes).toEqual(['tickets:read', 'tickets:write', 'boards:read', 'boards:write', 'users:read', 'users:write', 'kb:read', 'kb:write', 'webhooks:manage', 'audit:read']);
    expect(body.workspace.name).toBe('Demo workspace');
    expect(Object.keys(body).sort()).toEqual(['apiKey', 'limits', 'serviceUser', 'workspace']);

    // A write over a real socket: the body arrives with Content-Length, the path production reads.
    const auth = { authorization: `Bearer ${key}` };
    const board = (await (await fetch(`http://127.0.0.1:${ports.http}/public/v1/boards`, { headers: auth })).json()).data[0];
    const fields = board.fields
      .filter((f: { required: boolean }) => f.required)
      .map((f: { id: string; options: string[] }) => ({ fieldId: f.id, value: f.options[0] }));
    const created = await fetch(`http://127.0.0.1:${ports.http}/public/v1/tickets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ boardId: board.id, subject: 'Started', description: 'over HTTP', requesterEmail: 'a@example.com', fields }),
    });
    expect(created.status).toBe(201);
    expect((await created.json()).subject).toBe('Started');

    // Temporal Web answers on its port.
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);
    expect(await first.stop()).toBe(0);
    // A second start on the same data directory (no new seed, the keys still work) is
    // test/e2e/cli.test.ts's, after a stop; one here would only pay for another build and boot.
  });
});
