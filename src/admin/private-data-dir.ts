// DATA_DIR holds the embedded database (API key rows, webhook secrets), the Temporal dev server's
// SQLite file, the admin socket and the secret key file; only the service's user may read them.
// So every process that uses DATA_DIR first sets the umask to 077 (files it and its children, the
// Temporal dev server included, create are owner-only) and takes away group and other bits from
// whatever an earlier run left there. PGlite (Emscripten's file system) sets 0666 on the files it
// creates whatever the umask; the 0700 directories above them are what keeps those private.
import fs from 'node:fs';
import path from 'node:path';

const OTHERS = 0o077;

function restrict(file: string) {
  const stat = fs.lstatSync(file);
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & OTHERS) !== 0) fs.chmodSync(file, stat.mode & 0o7700);
  if (stat.isDirectory()) for (const name of fs.readdirSync(file)) restrict(path.join(file, name));
}

/** Sets this process's umask to 077, creates DATA_DIR with mode 0700, and makes all in it owner-only. */
export function makeDataDirPrivate(dataDir: string): void {
  process.umask(OTHERS);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  restrict(dataDir);
}
