// Runs before every test file: PostgreSQL when DATABASE_URL is set, else a fresh embedded
// PGlite directory for this file. Set before src/config.ts is first imported.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

if (!process.env.DATABASE_URL && !process.env.KEEP_DATA_DIR) {
  process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketing-test-'));
}
process.env.LOG_LEVEL ??= 'warn';
process.env.NODE_ENV ??= 'test';
