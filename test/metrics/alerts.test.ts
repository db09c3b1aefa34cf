// deploy/prometheus: the alerting rules pass `promtool check rules` and their unit tests
// (`promtool test rules`, every alert with a case where it fires and one where it must not), the
// example configuration passes `promtool check config`, and the rules ask only for metrics the
// service serves, each of which the Grafana dashboard shows too.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/paths.ts';
import { metricsRoutes } from '../../src/http/metrics-endpoint.ts';
import { provisioned } from '../support/tools.ts';

const dir = fromRoot('deploy/prometheus');

function promtool(...args: string[]) {
  const run = spawnSync(provisioned('PROMTOOL_PATH'), args, { cwd: dir, encoding: 'utf8' });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

interface Rule {
  alert: string;
  expr: string;
}
const rules: Rule[] = (load(readFileSync(`${dir}/alerts.yml`, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

/** Metric names in a PromQL expression: identifiers before `{`, `[` or the end, minus functions and keywords. */
function metricNames(expr: string): string[] {
  const words = [...expr.replace(/"[^"]*"/g, '""').matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)].map((m) => m[1]);
  const keywords = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'offset', 'bool', 'group_left', 'group_right']);
  const labels = new Set([...expr.matchAll(/\b([a-z_]+)\s*(?:=~|!~|!=|=)\s*"/g)].map((m) => m[1]));
  const grouped = new Set([...expr.matchAll(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g)].flatMap((m) => m[1].split(',').map((s) => s.trim())));
  return [...new Set(words.filter((w) => !keywords.has(w) && !labels.has(w) && !grouped.has(w) && !/^\d/.test(w)))];
}

describe('Prometheus alerting rules (deploy/prometheus)', () => {
  it('pass promtool check rules, and the example configuration passes check config', () => {
    const checked = promtool('check', 'rules', 'alerts.yml');
    expect(checked.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(checked.code, checked.output).toBe(0);
    const config = promtool('check', 'config', 'prometheus.yml');
    expect(config.code, config.output).toBe(0);
  });

  it('pass their unit tests, which cover every alert both firing and silent', () => {
    const tested = promtool('test', 'rules', 'alerts.test.yml');
    expect(tested.code, tested.output).toBe(0);
    expect(tested.output).toContain('SUCCESS');

    const cases = (load(readFileSync(`${dir}/alerts.test.yml`, 'utf8')) as { tests: { alert_rule_test: { alertname: string; exp_alerts?: unknown[] }[] }[] }).tests.flatMap(
      (t) => t.alert_rule_test,
    );
    for (const { alert } of rules) {
      expect(cases.some((c) => c.alertname === alert && (c.exp_alerts?.length ?? 0) > 0), `${alert} fires in a test`).toBe(true);
      expect(cases.some((c) => c.alertname === alert && (c.exp_alerts?.length ?? 0) === 0), `${alert} stays silent in a test`).toBe(true);
    }
  });

  it('ask only for metrics the service serves, each of which the dashboard shows', async () => {
    const text = await (await metricsRoutes().fetch(new Request('http://localhost/metrics'))).text();
    const served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const used = new Set(rules.flatMap((r) => metricNames(r.expr)));
    // `up` is Prometheus' own, per scrape target.
    used.delete('up');
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter((name) => !served.has(name))).toEqual([]);

    const dashboard = readFileSync(fromRoot('docs/grafana-dashboard.json'), 'utf8');
    expect([...used].filter((name) => !dashboard.includes(`${name}{`))).toEqual([]);
  });
});
