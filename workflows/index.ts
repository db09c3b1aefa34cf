// Every workflow the worker runs: the bundle entry (workflowsPath, src/temporal/workflow-bundle.ts).
// The workflow code lives in its domain; this folder only names it for the bundle. (The hello
// workflow the Temporal tests use is a test fixture: test/temporal/hello/.)
export * from '../src/webhooks/delivery/workflows.ts';
export * from '../src/webhooks/log/recover.workflows.ts';
export * from '../src/retention/retention.workflows.ts';
export * from '../src/jobs/ticket-bulk.workflows.ts';
