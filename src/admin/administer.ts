// How `npm run cli` and `npm run migrate` reach the database without ever losing a write. On
// PostgreSQL they open it themselves, as any number of processes may. On the embedded database
// only one process may: when the service runs they ask it over its admin channel; otherwise they
// open it themselves while holding the data directory's lock, so that a service started meanwhile
// refuses instead of opening it too.
import { config } from '../config.ts';
import type { Outcome } from './commands.ts';
import { adminSocket, askService } from './admin-client.ts';
import { claimDataDir, DataDirBusy } from './data-dir-lock.ts';

export async function administer(command: 'npm run cli' | 'npm run migrate', route: '/cli' | '/migrate', body: unknown, locally: () => Promise<Outcome>): Promise<Outcome> {
  if (config.database.kind !== 'pglite') return locally();
  const answer = await askService(config.dataDir, route, body);
  if (answer) return answer;
  let release: () => void;
  try {
    release = claimDataDir(config.dataDir, command);
  } catch (err) {
    if (!(err instanceof DataDirBusy)) throw err;
    const why =
      err.owner.command === 'npm start'
        ? `It does not answer on ${adminSocket(config.dataDir)} yet (still starting?): try again in a moment, or see its log.`
        : 'Try again when it has finished.';
    return { ok: false, error: `${err.message} ${why}` };
  }
  try {
    return await locally();
  } finally {
    release();
  }
}

/** A command's outcome on the terminal: its output, or its error and exit code 1. */
export function report(outcome: Outcome): void {
  if (outcome.ok) console.log(outcome.output);
  else {
    console.error(outcome.error);
    process.exitCode = 1;
  }
}
