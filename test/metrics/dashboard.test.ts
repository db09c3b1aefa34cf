// docs/grafana-dashboard.json asks only for metrics that the service serves (a renamed metric
// would leave a panel silently empty), and every metric of the registry is in the README's list.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/paths.ts';
import { metricsRoutes } from '../../src/http/metrics-endpoint.ts';

/** The metrics served, by name: type. */
const served = async () => {
  const text = await (await metricsRoutes().fetch(new Request('http://localhost/metrics'))).text();
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name, type]));
};

describe('the Grafana dashboard and the README', () => {
  it('every metric a panel queries is served', async () => {
    const dashboard = JSON.parse(readFileSync(fromRoot('docs/grafana-dashboard.json'), 'utf8'));
    const exprs: string[] = dashboard.panels.flatMap((p: { targets?: { expr: string }[] }) => (p.targets ?? []).map((t) => t.expr));
    const queried = new Set(exprs.flatMap((e) => [...e.matchAll(/\b([a-z_]+)\{/g)].map((m) => m[1])));
    expect(queried.size).toBeGreaterThan(10);
    const names = new Set([...(await served())].flatMap(([name, type]) => (type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name])));
    expect([...queried].filter((name) => !names.has(name))).toEqual([]);
  });

  it('the operators’ docs list every metric of ours', async () => {
    const readme = readFileSync(fromRoot('docs/operators/observability.md'), 'utf8');
    const ours = [...(await served()).keys()].filter((name) => !/^(process|nodejs)_/.test(name));
    expect(ours.length).toBeGreaterThan(10);
    expect(ours.filter((name) => !readme.includes(`| \`${name}\` |`))).toEqual([]);
  });
});
