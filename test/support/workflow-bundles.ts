// Workflow code bundled once per run rather than once per worker: the SDK's webpack bundling of
// workflows/index.ts took 2.5-4.5 s of CPU for every test file that started a worker on it. The
// first file of the run that needs a bundle makes it into the run's folder (global-setup.ts,
// removed at the end), the others read it. Bundled as Worker.create bundles a `workflowsPath`
// (no interceptor modules); test/temporal/ keeps testing that path itself.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

export async function workflowBundleOf(workflowsPath: string): Promise<WorkflowBundleOption> {
  const runDir = process.env.TEST_RUN_DIR;
  const bundle = () => bundleWorkflowCode({ workflowsPath, logger: quiet });
  if (!runDir) return bundle();
  const file = path.join(runDir, `workflows-${crypto.createHash('sha256').update(workflowsPath).digest('hex').slice(0, 16)}.js`);
  if (fs.existsSync(file)) return { codePath: file };
  const { code } = await bundle();
  // Written beside and renamed: a file reading it never sees half a bundle.
  const partial = `${file}.${process.pid}`;
  fs.writeFileSync(partial, code);
  fs.renameSync(partial, file);
  return { codePath: file };
}
