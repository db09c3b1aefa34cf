// Binary resolution: an explicit path from the environment wins, and a wrong one is an error.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

const dir = mkdtempSync(path.join(tmpdir(), 'temporal-binaries-'));

async function loadBinaries() {
  vi.resetModules(); // config.ts reads the environment once, at import
  return await import('../../src/temporal/binaries.ts');
}

describe('resolveTemporalCli / resolveTestServer', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('uses TEMPORAL_CLI_PATH and TEMPORAL_TEST_SERVER_PATH when set', async () => {
    const cli = path.join(dir, 'my-temporal');
    const testServer = path.join(dir, 'my-test-server');
    for (const file of [cli, testServer]) {
      writeFileSync(file, '#!/bin/sh\nexit 0\n');
      chmodSync(file, 0o755);
    }
    vi.stubEnv('TEMPORAL_CLI_PATH', cli);
    vi.stubEnv('TEMPORAL_TEST_SERVER_PATH', testServer);
    const { resolveTemporalCli, resolveTestServer, ensureTemporalCli } = await loadBinaries();

    expect(resolveTemporalCli()).toEqual({ type: 'existing-path', path: cli });
    expect(resolveTestServer()).toEqual({ type: 'existing-path', path: testServer });
    const log = vi.fn();
    expect(await ensureTemporalCli(log)).toEqual({ type: 'existing-path', path: cli });
    expect(log).not.toHaveBeenCalled();
  });

  it('rejects a configured path that is not an executable', async () => {
    vi.stubEnv('TEMPORAL_CLI_PATH', path.join(dir, 'missing'));
    const { resolveTemporalCli } = await loadBinaries();
    expect(() => resolveTemporalCli()).toThrow(/TEMPORAL_CLI_PATH=.*missing is not an executable/);
  });
});
