// The caches of resolved keys and sessions never outlive a revocation or sign-out on this instance:
// lookups racing one do not store the row they read (a reconnected listener empties them:
// revocation-listener.test.ts).
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestWorkspace } from '../support/fixtures.ts';
import { apiKeyService } from '../../src/api-keys/api-key.service.ts';
import { apiKeyRepository } from '../../src/api-keys/api-key.repository.ts';
import { sessionService } from '../../src/auth/session.service.ts';
import { sessionRepository } from '../../src/auth/session.repository.ts';

const RACERS = 12;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Makes `method` read the database as usual, then hold its row until `release()`: all RACERS
 * lookups have read the row before the test revokes it, and finish after.
 */
function holdReads<T extends object, K extends keyof T>(target: T, method: K) {
  const original = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
  const allRead = deferred();
  const gate = deferred();
  let reads = 0;
  const spy = vi.spyOn(target, method as never).mockImplementation((async (...args: unknown[]) => {
    const row = await original(...args);
    if (++reads === RACERS) allRead.resolve();
    await gate.promise;
    return row;
  }) as never);
  return {
    allRead: allRead.promise,
    release() {
      gate.resolve();
    },
    restore: () => spy.mockRestore(),
  };
}

const sessionTokenOf = (cookie: string) => cookie.split(';')[0].split('=')[1];
/** Session ids are the SHA-256 of the cookie's token. */
const sessionIdOf = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

describe('revocation on this instance', () => {
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  beforeAll(async () => {
    ws = await createTestWorkspace('Revocation');
  });

  it('a key lookup that read the row before the revocation does not cache it', async () => {
    const key = await ws.key();
    const held = holdReads(apiKeyRepository, 'findByPrefix');
    try {
      const lookups = Array.from({ length: RACERS }, () => apiKeyService.authenticate(key.value).catch(() => null));
      await held.allRead;
      await apiKeyService.revoke(ws.workspace.id, key.record.id);
      held.release();
      await Promise.all(lookups);
    } finally {
      held.restore();
    }
    await expect(apiKeyService.authenticate(key.value)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('a session lookup that read the row before the sign-out does not cache it', async () => {
    const { cookie } = await sessionService.signIn({ email: ws.admin.email!, password: 'correct horse battery staple' });
    const token = sessionTokenOf(cookie);
    const held = holdReads(sessionRepository, 'findById');
    try {
      const lookups = Array.from({ length: RACERS }, () => sessionService.authenticate(token));
      await held.allRead;
      await sessionService.end(sessionIdOf(token));
      held.release();
      await Promise.all(lookups);
    } finally {
      held.restore();
    }
    expect(await sessionService.authenticate(token)).toBeNull();
  });
});
