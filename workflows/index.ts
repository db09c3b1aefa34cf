// Every workflow the worker runs: the bundle entry (workflowsPath) of src/worker.ts. (The hello
// workflow the Temporal tests use is a test fixture: test/temporal/hello/.)
export * from './delivery/workflows.ts';
export * from './recover/workflows.ts';
export * from './retention/workflows.ts';
export * from './ticket-bulk/workflows.ts';
