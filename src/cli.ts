// `npm run cli -- keys create|revoke|list …` and `workspaces create|list`: headless administration
// (the commands are in src/admin/commands.ts). On the embedded database a running service runs them for us
// (src/admin/administer.ts), so a key printed here works at once and no write is lost.
import { administer, report } from './admin/administer.ts';

const argv = process.argv.slice(2);
// The commands and the database are loaded only when no running service answers for us (as in
// scripts/migrate.ts): a call beside a running service then takes about 1.5 s instead of 2.1 s
// (medians of four each, measured 29 November 2026), and the database opens on its first use.
const outcome = await administer('npm run cli', '/cli', { argv }, async () => {
  const { runCommand } = await import('./admin/commands.ts');
  const { db, migrate } = await import('./db/db.ts');
  try {
    await migrate();
    return await runCommand(argv);
  } finally {
    await db.close();
  }
});
report(outcome);
