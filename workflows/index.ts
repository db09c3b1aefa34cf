// Every workflow the worker runs: the bundle entry (workflowsPath) of src/worker.ts.
export * from './hello/workflows.ts';
export * from './delivery/workflows.ts';
export * from './recover/workflows.ts';
export * from './retention/workflows.ts';
