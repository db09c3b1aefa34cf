// @vitest-environment postgres
// The invalidation listener on PostgreSQL: when its LISTEN connection is killed, the caches of
// resolved keys and sessions are emptied, since messages sent meanwhile are lost.
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { createTestWorkspace } from '../support/fixtures.ts';
import { apiKeyService } from '../../src/api-keys/api-key.service.ts';
import { apiKeyRepository } from '../../src/api-keys/api-key.repository.ts';

describe('the invalidation listener (PostgreSQL)', () => {
  const LISTENERS = `SELECT pid FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = 'listen' AND state = 'idle' AND query LIKE 'LISTEN%'`;

  it('empties the caches when it reconnects, since messages sent meanwhile are lost', async () => {
    const ws = await createTestWorkspace('Listener reconnect');
    const key = await ws.key();
    const reads = vi.spyOn(apiKeyRepository, 'findByPrefix');
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      await apiKeyService.authenticate(key.value);
      let pids: number[] = [];
      await expect.poll(async () => (pids = (await admin.query(LISTENERS)).rows.map((r) => r.pid)).length, { timeout: 20_000 }).toBe(1);
      // The listener may have connected after the first lookup and emptied the cache already.
      await apiKeyService.authenticate(key.value);
      const before = reads.mock.calls.length;
      await apiKeyService.authenticate(key.value);
      expect(reads.mock.calls.length).toBe(before);

      await admin.query('SELECT pg_terminate_backend($1)', [pids[0]]);
      await expect
        .poll(async () => (await admin.query(LISTENERS)).rows.filter((r) => r.pid !== pids[0]).length, { timeout: 20_000 })
        .toBe(1);
      // The new connection's LISTEN may show before its answer reaches the listener: ask until it has.
      await expect
        .poll(async () => {
          await apiKeyService.authenticate(key.value);
          return reads.mock.calls.length;
        }, { timeout: 5_000 })
        .toBe(before + 1);
    } finally {
      reads.mockRestore();
      await admin.end();
    }
  });
});
