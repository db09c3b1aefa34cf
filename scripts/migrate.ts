// npm run migrate: applies pending migrations to DATABASE_URL (or the embedded PGlite). Beside a
// running service on the embedded database it does not open it: the service applied the
// migrations at start-up, and says whether newer ones wait for a restart (src/admin/administer.ts).
import { administer, report } from '../src/admin/administer.ts';

const outcome = await administer('npm run migrate', '/migrate', {}, async () => {
  // Loaded only now: importing the database module opens it.
  const { db, migrate } = await import('../src/db/db.ts');
  try {
    const applied = await migrate();
    return { ok: true, output: applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date' };
  } finally {
    await db.close();
  }
});
report(outcome);
