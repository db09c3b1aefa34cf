// `npm run cli -- keys create|revoke|list …` and `workspaces create|list`: headless administration
// (the commands are in src/admin/commands.ts). On the embedded database a running service runs them for us
// (src/admin/administer.ts), so a key printed here works at once and no write is lost.
import { administer, report } from './admin/administer.ts';
import { runCommand } from './admin/commands.ts';
import { db, migrate } from './db/db.ts';

const argv = process.argv.slice(2);
// The database opens on its first use: only when no running service answers for us.
const outcome = await administer('npm run cli', '/cli', { argv }, async () => {
  try {
    await migrate();
    return await runCommand(argv);
  } finally {
    await db.close();
  }
});
report(outcome);
