// `@prisma/streams-local` (only `prisma dev` loads it; it asks for Node 22) is replaced by the
// stand-in of scripts/stubs/prisma-streams-local through package.json's `overrides`: what is
// installed is the stand-in, the Prisma CLI's commands this project runs still work beside it, and
// `prisma dev`'s way in says plainly why it is not there.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/paths.ts';

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('the stand-in for @prisma/streams-local', () => {
  it('is what is installed, by the override, and asks for no newer Node than the project', () => {
    const pkg = readJson(fromRoot('package.json'));
    // A root dev dependency on the folder, and the override pointing @prisma/dev's at it (a `file:`
    // override alone is resolved from the package that asks for it, under node_modules).
    expect(pkg.devDependencies['@prisma/streams-local']).toBe('file:scripts/stubs/prisma-streams-local');
    expect(pkg.overrides['@prisma/streams-local']).toBe('$@prisma/streams-local');
    // Where @prisma/dev (the CLI's dependency) resolves it from (neither exports its package.json).
    const dev = createRequire(fromRoot('node_modules/prisma/package.json')).resolve('@prisma/dev');
    const entry = fs.realpathSync(createRequire(dev).resolve('@prisma/streams-local'));
    expect(entry).toBe(fromRoot('scripts/stubs/prisma-streams-local/index.js'));
    const installed = readJson(path.join(path.dirname(entry), 'package.json'));
    expect(installed.version).toBe('0.0.0-not-used');
    expect(installed.engines.node).toBe(pkg.engines.node);
    const lock = readJson(fromRoot('package-lock.json'));
    expect(lock.packages['node_modules/@prisma/streams-local']).toMatchObject({ resolved: 'scripts/stubs/prisma-streams-local', link: true });
  });

  it('leaves the Prisma CLI working: it validates the schema', () => {
    const out = execFileSync(fromRoot('node_modules/.bin/prisma'), ['validate', '--schema', 'schema.prisma'], {
      cwd: fromRoot('.'),
      encoding: 'utf8',
      // As scripts/generate.ts runs the CLI: any executable stands for the native schema engine,
      // which these commands never use (and which our machines cannot download).
      env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).toMatch(/is valid/);
  });

  it("refuses `prisma dev`'s use with a plain reason", async () => {
    const stub = await import('../../scripts/stubs/prisma-streams-local/index.js');
    await expect(stub.startLocalDurableStreamsServer()).rejects.toThrow(/`prisma dev` is not used here/);
  });
});
