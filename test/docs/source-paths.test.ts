// Source comments stay true to the repository, as the docs do (links.test.ts): every repository
// path a source file, script or Markdown page names (`src/…`, `docs/…`, `test/…`, …) exists, and
// nothing cites a file kept outside the repository (the contract's notes are written into docs/).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot, repoRoot } from '../../src/paths.ts';

/** Folders at the root whose paths the sources name. */
const TOP = ['src', 'test', 'docs', 'workflows', 'scripts', 'bench', 'web', 'deploy', 'docker', 'clients', 'prisma', '.ci'];
/** Made by a build or a run, not kept: named on purpose. */
const MADE = [/^web\/dist(\/|$)/, /^test\/ui\/artifacts(\/|$)/, /^bench\/results\/[\w-]+-$/];
/** Not paths: a unit (workflows/s), a regular expression's flags (prisma/i). */
const NOT_PATHS = new Set(['workflows/s', 'prisma/i']);
/** Tests that name missing or outside files on purpose (their own checks). */
const CHECKS = new Set(['test/docs/source-paths.test.ts', 'test/docs/links.test.ts', 'test/docs/folder-graph.test.ts']);
/** Files outside the repository that sources once cited. */
const OUTSIDE = /\bdecisions\.md\b|\.\.\/shared\//;

/** Repository paths named in `text`: a top folder, a slash, and more path, not part of a longer word or URL. */
export function namedRepoPaths(text: string): string[] {
  const pattern = new RegExp(`(?<![\\w./@:-])((?:${TOP.map((t) => t.replace('.', '\\.')).join('|')})/[\\w./-]*[\\w-])`, 'g');
  return [...text.matchAll(pattern)].map((m) => m[1].replace(/\.+$/, ''));
}

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean);
}

describe('paths named in sources and pages', () => {
  const files = trackedFiles();
  const known = new Set(files);
  for (const f of files) for (let i = f.indexOf('/'); i > 0; i = f.indexOf('/', i + 1)) known.add(f.slice(0, i));
  // A migration is never edited once committed (its checksum is recorded where it was applied),
  // so the paths its comments named may have moved since.
  const readable = files.filter((f) => !f.startsWith('migrations/') && /\.(ts|tsx|mjs|js|sh|ya?ml|md|prisma|sql)$|^Dockerfile$|^\.ci\/run$/.test(f) && !f.startsWith('bench/results/') && !f.startsWith('clients/') && !CHECKS.has(f));

  it('resolve to a file or folder of the repository (or to something a build makes)', () => {
    const missing = readable.flatMap((file) => {
      const text = fs.readFileSync(fromRoot(file), 'utf8');
      return namedRepoPaths(text)
        .filter((p) => !NOT_PATHS.has(p) && !known.has(p) && !known.has(p.replace(/\/$/, '')) && !MADE.some((m) => m.test(p)))
        .map((p) => `${file}: ${p}`);
    });
    expect([...new Set(missing)]).toEqual([]);
  });

  it('cite nothing kept outside the repository', () => {
    const citing = readable.filter((f) => OUTSIDE.test(fs.readFileSync(fromRoot(f), 'utf8')));
    expect(citing).toEqual([]);
  });

  it('the check finds paths in comments and prose, not in URLs or longer words', () => {
    expect(namedRepoPaths('// see src/webhooks/message/url-policy.ts, and docs/operators/ (x). https://a.b/src/x.ts my-src/y.ts')).toEqual([
      'src/webhooks/message/url-policy.ts',
      'docs/operators',
    ]);
    expect(namedRepoPaths('(bench/no-such-file.ts)')).toEqual(['bench/no-such-file.ts']);
  });
});
