// Builds a Worker the same way for every workflow domain (hello now, deliveries later).
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';

export interface CreateWorkerOptions extends Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath'> {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: object;
  /**
   * Absolute path of the domain's workflows.ts. The SDK's webpack bundles it as is: it resolves
   * `.ts`-suffixed imports literally and swc strips types, so no webpackConfigHook is needed.
   */
  workflowsPath: string;
}

export async function createWorker({
  connection,
  namespace,
  taskQueue,
  activities,
  workflowsPath,
  ...rest
}: CreateWorkerOptions): Promise<Worker> {
  return await Worker.create({ ...rest, connection, namespace, taskQueue, activities, workflowsPath });
}
