// Files the service reads at run time (migrations, Temporal workflow sources, the built settings
// UI, the Temporal install script) live in the repository, not next to the running module: the
// same code runs from src/ under tsx and bundled into dist/ by scripts/build.ts. Both sit one
// level below the repository root, found once as the nearest folder up with a package.json.
import fs from 'node:fs';
import path from 'node:path';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const repoRoot = findRoot(import.meta.dirname);

/** A path inside the repository. */
export const fromRoot = (...segments: string[]) => path.join(repoRoot, ...segments);
