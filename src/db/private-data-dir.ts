// DATA_DIR holds the embedded database (API key rows, webhook secrets), the Temporal dev server's
// SQLite file, the admin socket and the secret key file; only the service's user may read them.
// So every process that uses DATA_DIR first sets the umask to 077 (files it and its children, the
// Temporal dev server included, create are owner-only) and takes away group and other bits from
// whatever an earlier run left there. PGlite writes the files of a new database from its template
// with mode 0666 whatever the umask: the database takes those bits away once it is ready
// (src/db/database.ts), so a copy of the folder is as private as the folder.
import fs from 'node:fs';
import path from 'node:path';

const OTHERS = 0o077;

/** Takes group and other bits from `file` and, for a folder, from everything in it (links are left alone). */
export function makeOwnerOnly(file: string) {
  const stat = fs.lstatSync(file);
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & OTHERS) !== 0) fs.chmodSync(file, stat.mode & 0o7700);
  if (stat.isDirectory()) for (const name of fs.readdirSync(file)) makeOwnerOnly(path.join(file, name));
}

/** Sets this process's umask to 077, creates DATA_DIR with mode 0700, and makes all in it owner-only. */
export function makeDataDirPrivate(dataDir: string): void {
  process.umask(OTHERS);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  makeOwnerOnly(dataDir);
}
