// Builds a Worker the same way for every workflow domain.
import { Worker, type NativeConnection, type WorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';

interface CreateWorkerOptions extends Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'> {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: object;
  /**
   * Absolute path of the domain's workflows.ts. The SDK's webpack bundles it as is: it resolves
   * `.ts`-suffixed imports literally and swc strips types, so no webpackConfigHook is needed.
   */
  workflowsPath: string;
  /** A bundle made at build time (src/temporal/workflow-bundle.ts): used instead of bundling workflowsPath. */
  workflowBundle?: WorkflowBundleOption;
  /** Bundled with workflowsPath; a prebuilt bundle has its own (scripts/build.ts). */
  workflowInterceptorModules?: string[];
}

export async function createWorker({
  connection,
  namespace,
  taskQueue,
  activities,
  workflowsPath,
  workflowBundle,
  workflowInterceptorModules,
  ...rest
}: CreateWorkerOptions): Promise<Worker> {
  const code = workflowBundle
    ? { workflowBundle }
    : { workflowsPath, interceptors: { ...rest.interceptors, workflowModules: workflowInterceptorModules } };
  return await Worker.create({ ...rest, connection, namespace, taskQueue, activities, ...code });
}
