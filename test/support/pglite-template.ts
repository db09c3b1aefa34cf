// The migrated embedded database every PGlite test file starts from. Creating a PGlite data
// directory runs initdb in WebAssembly (about 11 s of CPU on our 2-core machine, the migrations
// themselves half a second); done once here, each file's setup copies the directory (under a
// second). Kept between runs in node_modules/.cache, named by what it is made of (the PGlite
// version and every migration's checksum), so a new migration or PGlite release makes a new one.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { applyMigrations, listMigrations } from '../../src/db/migrations.ts';
import { fromRoot } from '../../src/paths.ts';
import { schemaFingerprint } from './database-reset.ts';

const cacheDir = fromRoot('node_modules', '.cache', 'ticketing-tests');

function templateName(): string {
  // The package exports no package.json.
  const pgliteVersion = (JSON.parse(fs.readFileSync(fromRoot('node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as { version: string }).version;
  const hash = crypto.createHash('sha256').update(pgliteVersion);
  for (const m of listMigrations()) hash.update(`\0${m.name}\0${m.checksum}`);
  return `pglite-${hash.digest('hex').slice(0, 16)}`;
}

/**
 * The path of the migrated data directory, made when this combination has none yet, and the
 * fingerprint of its schema (support/database-reset.ts), kept beside it.
 */
export async function migratedPgliteTemplate(): Promise<{ dir: string; fingerprint: string }> {
  const dir = path.join(cacheDir, templateName());
  const fingerprintFile = `${dir}.fingerprint`;
  if (fs.existsSync(dir)) {
    if (!fs.existsSync(fingerprintFile)) fs.writeFileSync(fingerprintFile, await fingerprintOfCopy(dir));
    return { dir, fingerprint: fs.readFileSync(fingerprintFile, 'utf8') };
  }
  fs.mkdirSync(cacheDir, { recursive: true });
  // Made beside its final name and renamed, so that an interrupted run leaves no half directory.
  const building = fs.mkdtempSync(`${dir}.building-`);
  try {
    const lite = new PGlite(building);
    try {
      await applyMigrations({
        exec: async (sql) => void (await lite.exec(sql)),
        query: async (sql, params) => (await lite.query(sql, params)).rows as never[],
      });
      fs.writeFileSync(`${building}.fingerprint`, await schemaFingerprint({ query: async (sql, params) => (await lite.query(sql, params)).rows as never[] }));
    } finally {
      await lite.close();
    }
    // Stale templates (older migrations or PGlite) go.
    for (const entry of fs.readdirSync(cacheDir)) {
      if (entry.startsWith('pglite-') && !entry.startsWith(path.basename(dir))) fs.rmSync(path.join(cacheDir, entry), { recursive: true, force: true });
    }
    fs.renameSync(`${building}.fingerprint`, fingerprintFile);
    fs.renameSync(building, dir);
  } catch (err) {
    fs.rmSync(building, { recursive: true, force: true });
    fs.rmSync(`${building}.fingerprint`, { force: true });
    // Another run made the same template meanwhile: theirs is as good.
    if (!fs.existsSync(dir)) throw err;
  }
  return { dir, fingerprint: fs.readFileSync(fingerprintFile, 'utf8') };
}

/** A template made before fingerprints were kept: opened in a copy (opening writes to the directory). */
async function fingerprintOfCopy(dir: string): Promise<string> {
  const copy = fs.mkdtempSync(`${dir}.fingerprint-`);
  try {
    fs.cpSync(dir, copy, { recursive: true });
    const lite = new PGlite(copy);
    try {
      return await schemaFingerprint({ query: async (sql, params) => (await lite.query(sql, params)).rows as never[] });
    } finally {
      await lite.close();
    }
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/**
 * Gives a data directory (DATA_DIR) the migrated embedded database, when the run made one (runs
 * without DATABASE_URL): for each test file (setup.ts) and for the service processes a test starts
 * on a folder of its own. Tests of the very first start (an empty DATA_DIR) do not call it.
 */
export function copyMigratedPglite(dataDir: string): void {
  const template = process.env.TEST_PGLITE_TEMPLATE;
  // A copy-on-write clone where the file system has them, else a copy.
  if (template) fs.cpSync(template, path.join(dataDir, 'pglite'), { recursive: true, mode: fs.constants.COPYFILE_FICLONE });
}
