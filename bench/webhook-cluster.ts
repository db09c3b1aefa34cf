// `npm run bench:webhooks -- --target cluster`: the benchmark on the native production topology
// (npm run cluster) instead of a dev server: its PostgreSQL and its Temporal server (on that
// PostgreSQL). The cluster's api and worker processes are stopped for the run, so the
// benchmark's worker processes are the only ones that relay and deliver, and started again after.
// Imported once DATABASE_URL is set (the cluster's probes import src/config.ts).
import { waitHealthy } from '../scripts/cluster/control.ts';
import { services } from '../scripts/cluster/services.ts';
import { appProcesses, namespace, nativeEndpoints } from '../scripts/cluster/topology.ts';

export async function useCluster(log: (line: string) => void) {
  const byName = (name: string) => services.find((s) => s.name === name)!;
  for (const name of ['postgres', 'temporal']) {
    const s = byName(name);
    if (s.pid() === undefined || !(await s.healthy())) throw new Error(`the cluster's ${name} is not running: npm run cluster -- up`);
  }
  const apps = appProcesses.map((p) => byName(p.name)).filter((s) => s.pid() !== undefined);
  for (const s of apps) {
    log(`Stopping the cluster's ${s.name} for the run`);
    await s.stop();
  }
  return {
    temporalAddress: nativeEndpoints.temporal,
    namespace: namespace.name,
    temporalPid: byName('temporal').pid(),
    /** Starts the app processes that ran before, without the benchmark's settings (they inherit this process's environment). */
    async restore() {
      for (const name of ['WEBHOOK_ALLOW_PRIVATE_TARGETS', 'LOG_LEVEL', 'SEED_DEMO', 'DATABASE_URL']) delete process.env[name];
      for (const s of apps) {
        log(`Starting the cluster's ${s.name} again`);
        await s.start(() => undefined);
        await waitHealthy(s);
      }
    },
  };
}
