// The service as `npm start` runs it (scripts/build.ts: esbuild's dist/main.js beside the prebuilt
// workflow bundle, on plain node with scripts/start.sh's flags and environment), built once per
// run rather than once per start: a start through tsx took 7-12 s to its banner on our two cores
// (tsx compiling the sources, the worker bundling the workflows with webpack), the built bundle
// 3.5-5 s (measured 29 November 2026). The build is of the working tree's sources, so a test runs
// the code under test.
//
// Inside the repository (dist/), where src/paths.ts finds its root and Node finds node_modules;
// a folder of the run's own (named after global-setup.ts's run folder, removed at its end), so
// that `npm start` (test/e2e) rewriting dist/main.js cannot hand a test half a file. The first
// file of the run that needs it builds it; a file that finds it complete reads it.
import fs from 'node:fs';
import path from 'node:path';
import { productionNode, type Role } from '../../bench/production.ts';
import { fromRoot } from '../../src/paths.ts';

// scripts/build.ts's dist/ (that module, with esbuild and webpack, is imported only to build).
const distDir = fromRoot('dist');

/** The folder of this run's build in dist/ (global-setup.ts removes it with the run's folder). */
export function runBuildDir(runDir = process.env.TEST_RUN_DIR): string | undefined {
  return runDir ? path.join(distDir, `test-${path.basename(runDir)}`) : undefined;
}

let built: Promise<string> | undefined;

/** The folder holding this run's main.js and its workflow bundle; built by the first caller. */
function builtService(): Promise<string> {
  built ??= build();
  return built;
}

async function build(): Promise<string> {
  const { bundle, buildWorkflowBundle } = await import('../../scripts/build.ts');
  fs.mkdirSync(distDir, { recursive: true }); // a fresh clone has no dist/ yet
  const target = runBuildDir();
  if (target && fs.existsSync(path.join(target, 'main.js'))) return target;
  // Made beside its final name and renamed: a file reading it never sees half a build.
  const building = fs.mkdtempSync(path.join(distDir, 'test-building-'));
  try {
    await bundle({ main: fromRoot('src', 'main.ts') }, building);
    await buildWorkflowBundle(building);
  } catch (err) {
    fs.rmSync(building, { recursive: true, force: true });
    throw err;
  }
  if (!target) {
    // Outside vitest's global setup (no run folder): this process's own build, removed at its exit.
    process.once('exit', () => fs.rmSync(building, { recursive: true, force: true }));
    return building;
  }
  try {
    fs.renameSync(building, target);
  } catch (err) {
    // Another file of the run renamed its build first: use that one.
    fs.rmSync(building, { recursive: true, force: true });
    if (!fs.existsSync(path.join(target, 'main.js'))) throw err;
  }
  return target;
}

/** The command line of a built part: node, start.sh's flags, main.js, the part; and start.sh's environment. */
export async function builtServiceCommand(role: Role): Promise<{ args: string[]; env: Record<string, string> }> {
  const dir = await builtService();
  const { env, flags } = productionNode(role);
  return { args: [...flags, path.join(dir, 'main.js'), role], env };
}
