// The checks of /readyz as a gauge read at scrape time, so that an alert sees what a probe sees
// (deploy/prometheus/alerts.yml: the worker or Temporal unreachable, the database away).
// metrics-endpoint.ts registers it; the entry point hands it the process's checks.
import { Gauge, type Registry } from 'prom-client';
import { readiness, type ReadinessChecks } from './health.ts';
import { onResetForTests } from '../reset-for-tests.ts';

let measured: ReadinessChecks = {};
// A test file's checks are its own (src/reset-for-tests.ts).
onResetForTests(() => (measured = {}));

/** The checks this process's /readyz runs (src/main.ts); none until then. */
export function measureReadiness(checks: ReadinessChecks): void {
  measured = checks;
}

export function registerReadinessGauge(registry: Registry): void {
  new Gauge({
    name: 'readiness_check_ok',
    help: 'Each check of /readyz: 1 when it passes, 0 while its part is starting or failing',
    labelNames: ['check'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const { checks } = await readiness(measured);
      for (const [check, state] of Object.entries(checks)) this.set({ check }, state === 'ok' ? 1 : 0);
    },
  });
}
