// Each test makes its own workspace (random domain), so suites never collide and nothing is truncated.
import crypto from 'node:crypto';
import { migrate } from '../../src/db/db.ts';
import { workspaceService } from '../../src/workspaces/workspace.service.ts';
import { apiKeyService, type CreateKeyInput } from '../../src/api-keys/api-key.service.ts';
import { API_SCOPES } from '../../src/access/principal.ts';
import { createApp } from '../../src/http/app.ts';
import { onResetForTests } from '../../src/reset-for-tests.ts';

type App = ReturnType<typeof createApp>;

let migrated: Promise<unknown> | undefined;
export const ensureMigrated = () => (migrated ??= migrate());

export const randomSuffix = () => crypto.randomBytes(5).toString('hex');

export async function createTestWorkspace(name = 'Test workspace') {
  await ensureMigrated();
  const suffix = randomSuffix();
  const ws = await workspaceService.create({
    name: `${name} ${suffix}`,
    domain: `https://ws-${suffix}.example.test`,
    adminEmail: `admin-${suffix}@example.test`,
    adminName: 'Test Admin',
    adminPassword: 'correct horse battery staple',
  });
  return {
    ...ws,
    async key(input: Partial<CreateKeyInput> = {}) {
      const created = await apiKeyService.create(
        ws.workspace.id,
        { name: input.name ?? `key-${randomSuffix()}`, role: input.role ?? ws.roles.admin.id, scopes: input.scopes ?? [...API_SCOPES], expiresAt: input.expiresAt },
        ws.admin.id,
      );
      return created;
    },
  };
}

let defaultApp: App | undefined;
// The next file in a shared worker process starts from a just-migrated database (support/setup.ts;
// on PostgreSQL possibly one not migrated yet, when no file of the process used it, or made again),
// so it migrates again (nothing to apply, in the usual case), and an app of its own (its rate
// limiters count from zero).
onResetForTests(() => {
  migrated = undefined;
  defaultApp = undefined;
});

/**
 * Calls the service: `api('GET', '/me', { key })`. In-process (no port) on its HTTP app, made once
 * per file, or on the `app` given (several apps can share one store); over the network when
 * `origin` names a running server (`http://127.0.0.1:<port>`).
 */
export async function api(
  method: string,
  path: string,
  opts: { app?: App; origin?: string; key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: BodyInit } = {},
) {
  const send = (req: Request) => (opts.origin ? fetch(req) : (opts.app ?? (defaultApp ??= createApp())).fetch(req));
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: BodyInit | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await send(new Request(`${opts.origin ?? 'http://localhost'}${path.startsWith('/graphql') ? '' : '/public/v1'}${path}`, { method, headers, body }));
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, body: json, text };
}
