// The workflow bundle's interceptor module (src/temporal/workflow-bundle.ts): the trace
// interceptors, which live with the rest of tracing.
export { interceptors } from '../src/tracing/workflow-interceptors.ts';
