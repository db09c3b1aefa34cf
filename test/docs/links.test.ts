// The README and docs/ stay true to the repository: every relative link resolves to a file in it
// (and to a heading, when it names one), every variable src/config.ts reads is in the README's
// configuration table, and every error code is in the integrators' error table.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorTable } from '../../src/errors/errors.ts';
import { fromRoot } from '../../src/paths.ts';

const root = fromRoot('.');

function markdownFiles(): string[] {
  const docs = fs
    .readdirSync(fromRoot('docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f));
  return ['README.md', ...docs.sort()];
}

/** Markdown outside fenced code blocks and inline code, where links are links. */
function prose(text: string): string {
  return text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/`[^`\n]*`/g, '``');
}

/** Targets of `[text](target)` and `![alt](target)` links. */
function linkTargets(text: string): string[] {
  return [...prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = plain.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    anchors.add(n ? `${slug}-${n}` : slug);
    seen.set(slug, n + 1);
  }
  return anchors;
}

/** What is wrong with one relative link of `file` (a path from the root), or undefined. */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:: not a file
  const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = rawPath === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), decodeURI(rawPath));
  const inside = path.relative(root, resolved);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return `${target}: outside the repository`;
  if (!fs.existsSync(resolved)) return `${target}: no such file`;
  if (anchor && resolved.endsWith('.md') && !headingAnchors(fs.readFileSync(resolved, 'utf8')).has(anchor)) {
    return `${target}: no heading #${anchor} in ${inside}`;
  }
  return undefined;
}

/** File paths named in code spans (`dir/file.ext`), outside fenced blocks: the docs name files that way. */
function namedPaths(text: string): string[] {
  const withoutFences = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  return [...withoutFences.matchAll(/`([\w.-]+(?:\/[\w.-]+)+\.(?:ts|tsx|js|mjs|md|json|sh|ya?ml|toml|py|go|sql|prisma))`/g)].map((m) => m[1]);
}

/**
 * Whether a named path is a file: from the root, or under src/ or test/ (pages name test files from
 * test/, as the threat model does), or beside the page. Build output (dist/) is made, not kept.
 */
function namedPathExists(file: string, named: string): boolean {
  if (named.startsWith('dist/')) return true;
  return [fromRoot(named), fromRoot('src', named), fromRoot('test', named), path.join(root, path.dirname(file), named)].some((p) => fs.existsSync(p));
}

/** The variables src/config.ts reads: the keys of its zod schema of the environment. */
function configVariables(): string[] {
  const source = fs.readFileSync(fromRoot('src/config.ts'), 'utf8');
  const object = /const schema = z\.object\(\{([\s\S]*?)\n\}\);/.exec(source)?.[1] ?? '';
  const keys = [...object.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
  const read = [...source.matchAll(/\b(?:e|env|process\.env)\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]);
  return [...new Set([...keys, ...read])].sort();
}

/** Rows of the first table under a heading of the README, first cell's backticked names. */
function tableNames(markdown: string, heading: string): Set<string> {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) return new Set();
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const names = new Set<string>();
  for (const row of section.split('\n').filter((l) => l.startsWith('|'))) {
    const first = row.split('|')[1] ?? '';
    for (const m of first.matchAll(/`([^`]+)`/g)) names.add(m[1]);
  }
  return names;
}

describe('README and docs/', () => {
  const files = markdownFiles();

  it('finds the README and the docs pages', () => {
    expect(files).toContain('README.md');
    expect(files).toContain(path.join('docs', 'api-contract.md'));
    expect(files.length).toBeGreaterThan(5);
  });

  it('every relative link resolves to a file (and heading) inside the repository', () => {
    const broken = files.flatMap((file) =>
      linkTargets(fs.readFileSync(fromRoot(file), 'utf8')).flatMap((t) => {
        const problem = brokenLink(file, t);
        return problem ? [`${file}: ${problem}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('the link check catches a missing file, a missing heading and a way out of the repository', () => {
    expect(brokenLink('README.md', 'docs/no-such-page.md')).toMatch(/no such file/);
    expect(brokenLink('README.md', 'docs/api-contract.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('docs/api-contract.md', '../../shared/spec/public-api-v1.md')).toMatch(/outside the repository/);
    expect(brokenLink('README.md', 'docs/api-contract.md#errors')).toBeUndefined();
    expect(linkTargets('see `[x](nowhere.md)` and [y](real.md)')).toEqual(['real.md']);
    expect(headingAnchors('## What `npm start` does (`a/b`)\n## The UI\'s build\n## The UI\'s build')).toEqual(
      new Set(['what-npm-start-does-ab', 'the-uis-build', 'the-uis-build-1']),
    );
  });

  it('every file path the pages name in code exists', () => {
    const missing = files.flatMap((file) => namedPaths(fs.readFileSync(fromRoot(file), 'utf8')).filter((p) => !namedPathExists(file, p)).map((p) => `${file}: ${p}`));
    expect(missing).toEqual([]);
    // The check itself: a moved test file is caught; fences are not prose.
    expect(namedPaths('see `api/cli.test.ts` and `x`\n```\n`a/b.ts`\n```\n')).toEqual(['api/cli.test.ts']);
    expect(namedPathExists('docs/operators/threat-model.md', 'api/no-such.test.ts')).toBe(false);
    expect(namedPathExists('docs/operators/threat-model.md', 'auth/session.test.ts')).toBe(true);
  });

  it('the README is a front door of at most 250 lines', () => {
    const lines = fs.readFileSync(fromRoot('README.md'), 'utf8').split('\n').length - 1;
    expect(lines).toBeLessThanOrEqual(250);
  });

  it('every variable src/config.ts reads is in the README configuration table', () => {
    const variables = configVariables();
    expect(variables).toContain('DATABASE_URL');
    expect(variables.length).toBeGreaterThan(20);
    const documented = tableNames(fs.readFileSync(fromRoot('README.md'), 'utf8'), 'Configuration');
    expect(variables.filter((v) => !documented.has(v))).toEqual([]);
  });

  it('every error code is in the integrators’ error table, with its status', () => {
    const page = fs.readFileSync(fromRoot('docs/integrators/api-conventions.md'), 'utf8');
    const missing = Object.entries(errorTable).filter(
      ([code, { status }]) => !new RegExp(`^\\| \`${code}\` \\| ${status} \\|`, 'm').test(page),
    );
    expect(missing.map(([code]) => code)).toEqual([]);
  });
});
