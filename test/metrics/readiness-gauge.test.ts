// readiness_check_ok: the checks of /readyz at scrape time, 1 for a passing check and 0 for one
// that is starting or failing; no series before the entry point hands in its checks.
import { describe, expect, it } from 'vitest';
import { Starting } from '../../src/http/health.ts';
import { metricsRoutes } from '../../src/http/metrics-endpoint.ts';
import { measureReadiness } from '../../src/http/readiness-gauge.ts';
import { samples } from './scrape.ts';

const routes = metricsRoutes();
const readinessSamples = async () =>
  [...samples(await (await routes.fetch(new Request('http://localhost/metrics'))).text())].filter(([key]) => key.startsWith('readiness_check_ok'));

describe('readiness_check_ok', () => {
  it('reports each check of /readyz as scraped, and none before there are checks', async () => {
    expect(await readinessSamples()).toEqual([]);

    let temporalUp = false;
    measureReadiness({
      database: async () => undefined,
      worker: async () => Promise.reject(new Starting('connecting')),
      temporal: async () => {
        if (!temporalUp) throw new Error('unreachable');
      },
    });
    expect(await readinessSamples()).toEqual([
      ['readiness_check_ok{check="database"}', 1],
      ['readiness_check_ok{check="worker"}', 0],
      ['readiness_check_ok{check="temporal"}', 0],
    ]);

    // Read at each scrape, not remembered.
    temporalUp = true;
    expect(await readinessSamples()).toContainEqual(['readiness_check_ok{check="temporal"}', 1]);
    measureReadiness({ database: async () => undefined });
    expect(await readinessSamples()).toEqual([['readiness_check_ok{check="database"}', 1]]);
  });
});
