// npm run migrate: applies pending migrations to DATABASE_URL (or the embedded PGlite).
import { db, migrate } from '../src/db/db.ts';

const applied = await migrate();
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
await db.close();
