// `npm run lint` as part of `npm test` (so CI runs it once, through npm test): ESLint
// (eslint.config.js: ESLint's recommended rules and typescript-eslint's recommended type-aware
// ones, no-floating-promises among them) and knip (knip.jsonc: unused files, exports and
// dependencies) report nothing over the repository, with the pinned versions. No server: two
// child processes. knip takes a few seconds; ESLint about a minute of one core (it builds the
// TypeScript programs), so a clean ESLint result is remembered under the hash of every file it
// reads (node_modules/.cache/ticketing-lint/): a run whose sources, configs and lockfile are byte
// for byte those of a clean run is that run again. CI starts from a clean clone, so it always lints.
import { execFile, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fromRoot, repoRoot } from '../../src/paths.ts';

const execFileAsync = promisify(execFile);

async function run(bin: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const options = { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 256 * 1024 * 1024 };
  try {
    const { stdout, stderr } = await execFileAsync(fromRoot('node_modules/.bin', bin), args, options);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const { code, stdout = '', stderr = '' } = err as { code?: number | string; stdout?: string; stderr?: string };
    return { code: typeof code === 'number' ? code : -1, stdout, stderr };
  }
}

const version = (name: string) => (JSON.parse(fs.readFileSync(fromRoot('node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const pinned = (name: string) => (JSON.parse(fs.readFileSync(fromRoot('package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies[name];

/** Every file ESLint may read: the sources it lints and the types they import (the lockfile stands for node_modules). */
function eslintInputsHash(): string {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\0')
    .filter((f) => /\.(ts|tsx|js|mjs|cjs|json|jsonc)$/.test(f) && fs.existsSync(fromRoot(f)))
    .sort();
  const hash = crypto.createHash('sha256').update(`eslint ${version('eslint')} typescript-eslint ${version('typescript-eslint')}\0`);
  for (const f of files) hash.update(f).update('\0').update(fs.readFileSync(fromRoot(f))).update('\0');
  return hash.digest('hex');
}

describe('ESLint and knip', () => {
  it('knip finds no unused file, export or dependency and no unlisted one', { timeout: 120_000 }, async () => {
    expect(version('knip')).toBe(pinned('knip'));
    const knip = await run('knip', ['--reporter', 'json', '--no-progress']);
    const report = JSON.parse(knip.stdout) as { issues: ({ file: string } & Record<string, unknown>)[] };
    const found = report.issues.flatMap(({ file, ...kinds }) =>
      Object.entries(kinds).flatMap(([kind, items]) => (Array.isArray(items) ? items.map((i: { name?: string }) => `${file} ${kind}: ${i.name ?? JSON.stringify(i)}`) : [])),
    );
    expect(found).toEqual([]);
    expect(knip.code, knip.stderr).toBe(0);
  });

  it('ESLint reports nothing, not even a warning', { timeout: 600_000 }, async () => {
    expect([version('eslint'), version('typescript-eslint')]).toEqual([pinned('eslint'), pinned('typescript-eslint')]);
    const stamp = path.join(fromRoot('node_modules/.cache/ticketing-lint'), `eslint-clean-${eslintInputsHash()}`);
    if (fs.existsSync(stamp)) return;
    const eslint = await run('eslint', ['--format', 'json', '--max-warnings', '0', '.']);
    const results = JSON.parse(eslint.stdout) as { filePath: string; messages: { line?: number; ruleId: string | null; message: string }[] }[];
    const found = results.flatMap((r) => r.messages.map((m) => `${path.relative(repoRoot, r.filePath)}:${m.line ?? 0} ${m.ruleId ?? 'parse'}: ${m.message}`));
    expect(found).toEqual([]);
    expect(eslint.code, eslint.stderr).toBe(0);
    fs.rmSync(path.dirname(stamp), { recursive: true, force: true });
    fs.mkdirSync(path.dirname(stamp), { recursive: true });
    fs.writeFileSync(stamp, '');
  });
});
