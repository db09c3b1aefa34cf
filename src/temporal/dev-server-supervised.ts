// The dev server kept running: started again when its process ends by itself (`npm start`
// without TEMPORAL_ADDRESS runs it so).
import { aborted, supervise, type SuperviseLog } from '../supervise.ts';
import { startDevServer, type DevServer, type StartDevServerOptions } from './dev-server.ts';

/** Restart delays after the server ended: the first at once-ish, then longer up to 10 s. */
const RESTART_DELAYS_MS = [250, 1_000, 2_000, 5_000, 10_000];
/** A server that ran this long before it ended is restarted as if for the first time. */
const STABLE_AFTER_MS = 60_000;

/**
 * startDevServer, kept running: when the server process ends by itself (crash, OOM kill, SIGKILL)
 * it is started again on the same SQLite file and ports, so its workflows and history survive
 * and clients at the same address reconnect (the SDK's connections do so on their own). Each
 * restart is logged; repeated ones back off to 10 s. `pid()` is the current server's process.
 * (A server the SDK downloaded and runs itself, without a local CLI, is not supervised.)
 */
export async function startSupervisedDevServer(
  options: StartDevServerOptions & { log?: SuperviseLog },
): Promise<Omit<DevServer, 'pid' | 'exited'> & { pid(): number | undefined }> {
  const log = options.log ?? { info: () => undefined, warn: () => undefined };
  let current = await startDevServer(options);
  let first = true;
  const supervisor = supervise({
    async run({ signal, healthy }) {
      if (!first) {
        current = await startDevServer(options);
        log.info({ address: current.address, pid: current.pid }, 'Temporal dev server restarted');
      }
      first = false;
      const startedAt = Date.now();
      const ended = await Promise.race([current.exited, aborted(signal).then(() => undefined)]);
      if (!ended) return;
      if (Date.now() - startedAt >= STABLE_AFTER_MS) healthy();
      throw new Error(`exited with ${ended.signal ?? `code ${ended.code}`}`);
    },
    backoffMs: (failures) => RESTART_DELAYS_MS[Math.min(failures - 1, RESTART_DELAYS_MS.length - 1)],
    failed: 'Temporal dev server ended; restarting it',
    logEvery: 1,
    fields: { address: current.address },
    log,
  });

  return {
    address: current.address,
    namespace: current.namespace,
    uiUrl: current.uiUrl,
    pid: () => current.pid,
    async stop() {
      await supervisor.stop();
      await current.stop();
    },
  };
}
