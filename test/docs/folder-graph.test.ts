// The import rule of docs/contributing/layout.md ("Imports go downwards"), checked: no two folders
// of src/ and workflows/ import each other, directly or round a longer loop (a "folder tangle");
// inside the webhooks wing, no room imports one that comes before it on an event's walk, and no
// file under src/ imports workflows/ (the bundle's entry points, which only re-export).
// dependency-cruiser reads the imports (type-only and dynamic ones included, resolved as Node and
// TypeScript do); the folders are then the nodes of a graph whose strongly connected components
// must each be one folder. A folder is a top-level one of src/ or workflows/ with everything
// below it (src/webhooks/subscriptions/ is part of src/webhooks); a file directly in src/ or
// workflows/ (config.ts, main.ts, bundle.ts…) is a node of its own: the entry points import
// downwards and the root kit files import nothing.
import { cruise, type IModule } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../src/paths.ts';

const ROOTS = new Set(['src', 'workflows']);

/** The node a file belongs to: its top-level folder under a root, or itself when it sits directly in a root. */
export function nodeOf(file: string): string {
  const parts = file.split('/');
  return ROOTS.has(parts[0]) && parts.length > 2 ? parts.slice(0, 2).join('/') : file;
}

/** Tarjan's strongly connected components of `edges` with more than one node. */
export function tangles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * The webhooks wing's rooms in the order an event walks through them: an import goes only to a
 * room further along (src/webhooks/README.md). `log` reads every stage's rows and comes first:
 * no stage imports it.
 */
export const WEBHOOK_ROOMS = ['log', 'subscriptions', 'fanout', 'delivery', 'message'] as const;

/** The room of a file of the webhooks wing (undefined outside it). */
export const roomOf = (file: string): string | undefined => /^src\/webhooks\/([^/]+)\//.exec(file)?.[1];

/** Imports between rooms that go back along the walk (or to a room the order does not name). */
export function backImports(imports: [string, string][]): string[] {
  return imports.flatMap(([from, to]) => {
    const [a, b] = [roomOf(from), roomOf(to)];
    if (a === undefined || b === undefined || a === b) return [];
    const [i, j] = [WEBHOOK_ROOMS.indexOf(a as never), WEBHOOK_ROOMS.indexOf(b as never)];
    return i >= 0 && j >= 0 && i < j ? [] : [`${from} imports ${to}`];
  });
}

describe('the folder graph', () => {
  let modules: IModule[] = [];
  beforeAll(async () => {
    const previous = process.cwd();
    process.chdir(repoRoot);
    const result = await cruise(['src', 'workflows'], { tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' }, exclude: { path: '^src/generated/' } }).finally(() => process.chdir(previous));
    modules = typeof result.output === 'string' ? [] : result.output.modules;
  }, 60_000);
  const imports = (): [string, string][] => modules.flatMap((m) => m.dependencies.map((d): [string, string] => [m.source, d.resolved]));

  it('has no tangle: each folder of src/ and workflows/ imports only folders that do not import it back', () => {
    expect(modules.length, 'dependency-cruiser read the sources').toBeGreaterThan(100);

    const edges = new Map<string, Set<string>>();
    const why = new Map<string, string>();
    for (const m of modules) {
      for (const d of m.dependencies) {
        if (!/^(src|workflows)\//.test(d.resolved) || d.resolved.startsWith('src/generated/')) continue;
        const [from, to] = [nodeOf(m.source), nodeOf(d.resolved)];
        if (from === to) continue;
        edges.set(from, (edges.get(from) ?? new Set()).add(to));
        why.set(`${from} -> ${to}`, `${m.source} imports ${d.resolved}`);
      }
    }
    expect(edges.size, 'folders with imports').toBeGreaterThan(20);

    const report = tangles(edges).map((t) => {
      const inside = [...why].filter(([edge]) => t.includes(edge.split(' -> ')[0]) && t.includes(edge.split(' -> ')[1]));
      return `tangle of ${t.length} (${t.join(', ')}):\n${inside.map(([edge, file]) => `  ${edge}  e.g. ${file}`).join('\n')}`;
    });
    expect(report.join('\n'), 'folders that import each other (docs/contributing/layout.md)').toBe('');
  });

  it('webhooks: each room imports only rooms further along an event\'s walk, and nothing under src/ imports workflows/', () => {
    const wing = imports().filter(([from]) => roomOf(from) !== undefined);
    expect(new Set(wing.map(([from]) => roomOf(from))), 'the rooms read').toEqual(new Set(WEBHOOK_ROOMS));
    expect(backImports(imports())).toEqual([]);
    expect(imports().filter(([from, to]) => from.startsWith('src/') && to.startsWith('workflows/'))).toEqual([]);
  });

  it('finds a tangle when two folders import each other, and none in a chain', () => {
    const graph = (pairs: [string, string][]) => {
      const g = new Map<string, Set<string>>();
      for (const [a, b] of pairs) g.set(a, (g.get(a) ?? new Set()).add(b));
      return g;
    };
    expect(tangles(graph([['a', 'b'], ['b', 'c'], ['c', 'a'], ['c', 'd']]))).toEqual([['a', 'b', 'c']]);
    expect(tangles(graph([['a', 'b'], ['b', 'c'], ['a', 'c']]))).toEqual([]);
    expect(nodeOf('src/config.ts')).toBe('src/config.ts');
    expect(nodeOf('src/webhooks/fanout/outbox-relay.ts')).toBe('src/webhooks');
    expect(nodeOf('workflows/index.ts')).toBe('workflows/index.ts');
    expect(backImports([
      ['src/webhooks/subscriptions/a.ts', 'src/webhooks/message/b.ts'],
      ['src/webhooks/log/a.ts', 'src/webhooks/subscriptions/b.ts'],
      ['src/webhooks/fanout/a.ts', 'src/webhooks/fanout/b.ts'],
      ['src/webhooks/message/a.ts', 'src/webhooks/delivery/b.ts'],
      ['src/webhooks/delivery/a.ts', 'src/webhooks/log/b.ts'],
      ['src/webhooks/nowhere/a.ts', 'src/webhooks/log/b.ts'],
    ])).toEqual([
      'src/webhooks/message/a.ts imports src/webhooks/delivery/b.ts',
      'src/webhooks/delivery/a.ts imports src/webhooks/log/b.ts',
      'src/webhooks/nowhere/a.ts imports src/webhooks/log/b.ts',
    ]);
  });
});
