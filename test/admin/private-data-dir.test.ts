// DATA_DIR is private to the service's user: `npm start` (src/admin/claim-data-dir.ts, imported
// first by src/main.ts) sets the umask to 077, makes DATA_DIR 0700 and takes group and other bits
// from what an earlier run left; then the embedded database and the Temporal dev server write
// there. Run here as main.ts runs them, in this test file's own process and DATA_DIR.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { config } from '../../src/config.ts';
import type { DevServer } from '../../src/temporal/dev-server.ts';
import { freePort } from '../support/http.ts';

function walk(dir: string, out: { file: string; mode: number; dir: boolean }[] = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    const stat = fs.lstatSync(file);
    out.push({ file: path.relative(config.dataDir, file), mode: stat.mode & 0o777, dir: stat.isDirectory() });
    if (stat.isDirectory()) walk(file, out);
  }
  return out;
}
const open = (entries: ReturnType<typeof walk>) => entries.filter((e) => (e.mode & 0o077) !== 0).map((e) => `${e.file} ${e.mode.toString(8)}`);

// The embedded default even where the suite runs on PostgreSQL (CI): before src/config.ts is read
// (awaited: the imports below wait for it, not only for its first synchronous part).
await vi.hoisted(async () => {
  const [fs, os, path] = await Promise.all([import('node:fs'), import('node:os'), import('node:path')]);
  delete process.env.DATABASE_URL;
  process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketing-private-'));
});

let dev: DevServer | undefined;
afterAll(async () => {
  await dev?.stop();
  const { db } = await import('../../src/db/db.ts');
  await db.close();
});

describe('DATA_DIR of the embedded default', () => {
  it('is 0700 with everything in it owner-only: left-over files, the database, the lock and the Temporal dev server', { timeout: 180_000 }, async () => {
    expect(config.database.kind, 'this test runs on the embedded database').toBe('pglite');
    // What an earlier run under a lax umask left behind.
    fs.chmodSync(config.dataDir, 0o755);
    fs.mkdirSync(path.join(config.dataDir, 'old'), { mode: 0o777 });
    fs.chmodSync(path.join(config.dataDir, 'old'), 0o777);
    fs.writeFileSync(path.join(config.dataDir, 'old', 'left-over'), 'x', { mode: 0o666 });
    fs.chmodSync(path.join(config.dataDir, 'old', 'left-over'), 0o666);

    // As src/main.ts starts: claim (and make private) first, then the database and the dev server.
    await import('../../src/admin/claim-data-dir.ts');
    const { migrate } = await import('../../src/db/db.ts');
    await migrate();
    const { startDevServer } = await import('../../src/temporal/dev-server.ts');
    dev = await startDevServer({ port: await freePort(), dbFile: path.join(config.dataDir, 'temporal.sqlite') });

    expect(fs.statSync(config.dataDir).mode & 0o777).toBe(0o700);
    const entries = walk(config.dataDir);
    expect(entries.map((e) => e.file)).toEqual(expect.arrayContaining(['pglite', 'pglite.lock', 'temporal.sqlite', 'old/left-over']));
    // Every directory is owner-only, so nothing below DATA_DIR is reachable by another user.
    expect(open(entries.filter((e) => e.dir))).toEqual([]);
    // Every file is owner-only too, PGlite's included (it writes a new database's files as 0666
    // whatever the umask), so a copy of the folder stays private.
    expect(open(entries.filter((e) => !e.dir))).toEqual([]);
    expect(process.umask()).toBe(0o077);

    // The next start takes the group and other bits from whatever is left as well.
    const { makeDataDirPrivate } = await import('../../src/db/private-data-dir.ts');
    makeDataDirPrivate(config.dataDir);
    expect(open(walk(config.dataDir))).toEqual([]);
  });
});
