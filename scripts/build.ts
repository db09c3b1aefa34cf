// `npm run build` (and the first step of `npm start`): bundles the service's entry points into
// dist/ with esbuild, so that production runs plain `node` on JavaScript. Under tsx every process
// also carries tsx's loader thread and its on-the-fly compilation (~80 MB more RSS). Packages
// stay external (resolved from node_modules at run time); only our own TypeScript is bundled.
// Files read at run time (migrations, workflow sources for Temporal's bundler, web/dist) are
// found from the repository root (src/paths.ts), so dist/ needs nothing copied next to it.
import path from 'node:path';
import { build } from 'esbuild';
import { fromRoot } from '../src/paths.ts';

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

export const buildService = () => bundle({ main: fromRoot('src', 'main.ts'), cli: fromRoot('src', 'cli.ts') }, distDir);

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  const started = Date.now();
  await buildService();
  console.error(`built ${path.relative(process.cwd(), distDir) || distDir}/ in ${Date.now() - started} ms`);
}
