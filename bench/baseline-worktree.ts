// An earlier commit of this repository checked out beside it for a benchmark to compare against
// (bench:api-cost, bench:webhooks --baseline): a detached temporary git worktree sharing this
// checkout's node_modules and provisioned tools (.tools), removed by `remove()`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface BaselineWorktree {
  /** The worktree's root. */
  dir: string;
  /** The commit, abbreviated. */
  commit: string;
  remove(): void;
}

export function addBaselineWorktree(root: string, rev: string): BaselineWorktree {
  const commit = execFileSync('git', ['rev-parse', '--short', `${rev}^{commit}`], { cwd: root, encoding: 'utf8' }).trim();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-baseline-${commit}-`));
  fs.rmdirSync(dir);
  execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: root, stdio: 'ignore' });
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  // The provisioned binaries (Temporal CLI and the like), for a baseline that runs a dev server.
  if (fs.existsSync(path.join(root, '.tools'))) fs.symlinkSync(path.join(root, '.tools'), path.join(dir, '.tools'));
  let removed = false;
  return {
    dir,
    commit,
    remove() {
      if (removed) return;
      removed = true;
      execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'ignore' });
    },
  };
}

/**
 * The version's own bench server (bench/servers/app.ts), bundled by its own scripts/build.ts
 * inside its tree (its src/paths.ts finds its root there); returns the bundle's path.
 */
export function bundleAppIn(dir: string): string {
  const script = "const { bundle, distDir } = await import('./scripts/build.ts'); await bundle({ app: 'bench/servers/app.ts' }, distDir + '/bench');";
  execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: dir, stdio: 'inherit' });
  return path.join(dir, 'dist', 'bench', 'app.js');
}

/** The commit checked out at `root`, abbreviated, and whether tracked files differ from it. */
export function currentCommit(root: string): { commit: string; dirty: boolean } {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).trim() !== '';
  return { commit, dirty };
}
