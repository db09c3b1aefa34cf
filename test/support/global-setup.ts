// Once per `npm test`: names this run's per-file databases (setup.ts) and drops them at the end.
import crypto from 'node:crypto';
import pg from 'pg';

export default function setup() {
  const base = process.env.DATABASE_URL;
  if (!base) return;
  const prefix = `test_${crypto.randomBytes(3).toString('hex')}_`;
  process.env.TEST_RUN_DB_PREFIX = prefix;
  return async () => {
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`]);
      for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  };
}
