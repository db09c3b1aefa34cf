// Where the worker's workflow code comes from. Production runs dist/main.js, beside which
// `npm run build` writes the prebuilt bundle; tests and tsx runs bundle the sources at start.
// The bundle's entry points are the files of workflows/ (they re-export the workflow code, which
// lives in its domain: src/webhooks/delivery/workflows.ts, …); they are named here by path, never
// imported, so nothing under src/ imports workflows/.
import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { fromRoot } from '../paths.ts';

/** The entry of every workflow the service's worker runs. */
export const workflowsPath = fromRoot('workflows', 'index.ts');

/** Workflow interceptor modules of the bundle (a prebuilt bundle cannot take them at worker start). */
export const workflowInterceptorModules = [fromRoot('workflows', 'interceptors.ts')];

export const WORKFLOW_BUNDLE_FILE = 'workflows-bundle.js';

/**
 * The bundle next to the running module: dist/ once esbuild has put this code into dist/main.js;
 * under tsx this module runs from src/temporal/, where no bundle is ever written, so the sources
 * are bundled (a stale dist/ bundle is never picked up by a tsx run).
 */
export function prebuiltWorkflowBundle(dir = import.meta.dirname): WorkflowBundleOption | undefined {
  const codePath = path.join(dir, WORKFLOW_BUNDLE_FILE);
  return fs.existsSync(codePath) ? { codePath } : undefined;
}
