// Imported by src/main.ts before anything that opens the database (importing src/db/db.ts opens
// it): on the embedded database `npm start` claims DATA_DIR first (src/admin/data-dir-lock.ts), so
// that a second `npm start`, or a CLI, never opens the same PGlite directory beside it.
import { config } from '../config.ts';
import { claimDataDir, DataDirBusy } from './data-dir-lock.ts';
import { makeDataDirPrivate } from '../db/private-data-dir.ts';

// The Temporal dev server also keeps its data in DATA_DIR (claimDataDir makes it private too).
if (config.database.kind !== 'pglite' && !config.temporal.address) makeDataDirPrivate(config.dataDir);
if (config.database.kind === 'pglite') {
  try {
    claimDataDir(config.dataDir, 'npm start');
  } catch (err) {
    if (!(err instanceof DataDirBusy)) throw err;
    console.error(`${err.message} Stop it first, give this service another DATA_DIR, or set DATABASE_URL (PostgreSQL serves many processes).`);
    process.exit(1);
  }
}
