// The OpenAPI document passes Redocly's `recommended` rules (redocly.yaml) and Spectral's
// `spectral:oas` rules (.spectral.yaml) with nothing reported: no error, no warning. Both CLIs are
// the pinned devDependencies; they lint the generated openapi.json, which `npm run generate
// -- --check` keeps equal to the served document, so a route added later is linted too.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/paths.ts';

const document = fromRoot('openapi.json');
// Neither CLI may reach the network: Redocly's telemetry and update check are off.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

function run(bin: string, args: string[]) {
  const result = spawnSync(fromRoot('node_modules/.bin', bin), args, { cwd: fromRoot('.'), env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const pinned = (name: string) => {
  const wanted = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')).devDependencies[name];
  const installed = JSON.parse(readFileSync(fromRoot('node_modules', name, 'package.json'), 'utf8')).version;
  return { wanted, installed };
};

describe('openapi.json and the linters', () => {
  it("passes Redocly's recommended rules with no error and no warning", { timeout: 120_000 }, () => {
    const { wanted, installed } = pinned('@redocly/cli');
    expect(installed).toBe(wanted);
    const lint = run('redocly', ['lint', document, '--config', fromRoot('redocly.yaml'), '--format', 'json']);
    const report = JSON.parse(lint.stdout) as { totals: { errors: number; warnings: number }; version: string; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
    expect(report.version).toBe(wanted);
    expect(report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(lint.code, lint.stderr).toBe(0);
  });

  it("passes Spectral's spectral:oas rules with nothing reported", { timeout: 120_000 }, () => {
    const { wanted, installed } = pinned('@stoplight/spectral-cli');
    expect(installed).toBe(wanted);
    const lint = run('spectral', ['lint', document, '--ruleset', fromRoot('.spectral.yaml'), '--format', 'json', '--fail-severity', 'hint']);
    // With nothing to report, Spectral prints `[]` and then its "No results" sentence.
    const json = lint.stdout.slice(lint.stdout.indexOf('['), lint.stdout.lastIndexOf(']') + 1);
    const found = JSON.parse(json) as { code: string; path: string[]; message: string }[];
    expect(found.map((d) => `${d.code} ${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(lint.code, `${lint.stdout}\n${lint.stderr}`).toBe(0);
  });
});
