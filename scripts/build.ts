// `npm run build` (and the first step of `npm start`): bundles the service's entry points into
// dist/ with esbuild, so that production runs plain `node` on JavaScript. Under tsx every process
// also carries tsx's loader thread and its on-the-fly compilation (~80 MB more RSS). Packages
// stay external (resolved from node_modules at run time); only our own TypeScript is bundled.
// It also bundles the Temporal workflows (dist/workflows-bundle.js): a worker that bundles them
// itself at start keeps webpack's modules and sources in its heap for the life of the process.
// Files read at run time (migrations, web/dist) are found from the repository root
// (src/paths.ts), so dist/ needs nothing copied next to it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { fromRoot, repoRoot } from '../src/paths.ts';
import { scalarAssets, scalarVersion } from '../src/api/api-reference.ts';
import { WORKFLOW_BUNDLE_FILE, workflowInterceptorModules, workflowsPath } from '../src/temporal/workflow-bundle.ts';

export const distDir = fromRoot('dist');

/** The esbuild settings of the service, for any entry points (bench/api.ts bundles its servers too). */
export async function bundle(entryPoints: Record<string, string>, outdir: string): Promise<void> {
  await build({
    entryPoints,
    outdir,
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

/**
 * What the workflow bundle is made of: the files the entry points of workflows/ import, followed
 * through the sources (esbuild's metafile lists them; packages are left out, type-only imports
 * add no code), and the lockfile (the SDK's version). webpack takes ~2 s where this takes a few
 * tens of ms, so the bundle is remade only when this changes.
 */
async function workflowInputsHash(): Promise<string> {
  const { metafile } = await build({
    entryPoints: [workflowsPath, ...workflowInterceptorModules],
    bundle: true,
    write: false,
    metafile: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    outdir: 'unused',
    absWorkingDir: repoRoot,
    logLevel: 'silent',
  });
  const hash = crypto.createHash('sha256');
  for (const file of [...Object.keys(metafile.inputs).sort(), 'package-lock.json']) {
    hash.update(file).update('\0').update(fs.readFileSync(fromRoot(file))).update('\0');
  }
  return hash.digest('hex');
}

/** Bundles the workflows into dist/ unless the bundle there was made from the same inputs. */
export async function buildWorkflowBundle(outdir = distDir): Promise<'built' | 'unchanged'> {
  const codePath = path.join(outdir, WORKFLOW_BUNDLE_FILE);
  const hashPath = `${codePath}.sha256`;
  const inputs = await workflowInputsHash();
  if (fs.existsSync(codePath) && fs.existsSync(hashPath) && fs.readFileSync(hashPath, 'utf8') === inputs) return 'unchanged';
  // Imported here: the SDK's bundler pulls in webpack and swc, which a cached build never needs.
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: quietLogger });
  fs.mkdirSync(outdir, { recursive: true });
  fs.writeFileSync(codePath, code);
  fs.writeFileSync(hashPath, inputs);
  return 'built';
}

const noop = () => undefined;
/** webpack's progress lines are noise in `npm start`; its errors still fail the build (thrown). */
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: console.warn, error: console.error };

export const buildService = () => bundle({ main: fromRoot('src', 'main.ts'), cli: fromRoot('src', 'cli.ts') }, distDir);

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  const started = Date.now();
  const [, workflows] = await Promise.all([buildService(), buildWorkflowBundle()]);
  // The API reference's bundle and its gzip form, so that no server makes them on its first start.
  scalarAssets(scalarVersion());
  console.error(`built ${path.relative(process.cwd(), distDir) || distDir}/ in ${Date.now() - started} ms (workflow bundle ${workflows})`);
}
