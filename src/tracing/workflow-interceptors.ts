// Workflow interceptors for traces (bundled with the workflows: src/temporal/workflow-bundle.ts). Temporal's
// OpenTelemetry interceptors, but only in runs whose start carried a trace context, which a
// client with traces on always sends (src/tracing/temporal.ts). The decision rests on the start's
// headers, which replay gives back unchanged, and the interceptors add no commands, so replay is
// unaffected either way.
//
// Other runs pay nothing: the worker evaluates a bundle's modules anew for every workflow run, so
// the interceptors and the OpenTelemetry SDK under them (half the bundle) are required only
// inside a traced run, never imported at the top of this module.
import type { WorkflowInboundCallsInterceptor, WorkflowInterceptors, WorkflowInternalsInterceptor, WorkflowOutboundCallsInterceptor } from '@temporalio/workflow';

type OpenTelemetryInterceptors = typeof import('@temporalio/interceptors-opentelemetry/lib/workflow/index.js');

/** The header Temporal's client interceptor writes the trace context into (its TRACE_HEADER). */
const TRACE_HEADER = '_tracer-data';

export const interceptors = (): WorkflowInterceptors => {
  let traced:
    | { inbound: WorkflowInboundCallsInterceptor; outbound: WorkflowOutboundCallsInterceptor; internals: WorkflowInternalsInterceptor }
    | undefined;
  const inbound: WorkflowInboundCallsInterceptor = {
    execute(input, next) {
      if (input.headers[TRACE_HEADER] === undefined) return next(input);
      // Webpack's require: evaluated here, in this run only.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- an import would load it in every workflow run
      const otel = require('@temporalio/interceptors-opentelemetry/lib/workflow/index.js') as OpenTelemetryInterceptors;
      traced = { inbound: new otel.OpenTelemetryInboundInterceptor(), outbound: new otel.OpenTelemetryOutboundInterceptor(), internals: new otel.OpenTelemetryInternalsInterceptor() };
      return traced.inbound.execute!(input, next);
    },
    handleSignal: (input, next) => (traced ? traced.inbound.handleSignal!(input, next) : next(input)),
  };
  // What the service's workflows do: (local) activities, signals to other workflows, continue-as-new.
  const outbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) => (traced ? traced.outbound.scheduleActivity!(input, next) : next(input)),
    scheduleLocalActivity: (input, next) => (traced ? traced.outbound.scheduleLocalActivity!(input, next) : next(input)),
    signalWorkflow: (input, next) => (traced ? traced.outbound.signalWorkflow!(input, next) : next(input)),
    continueAsNew: (input, next) => (traced ? traced.outbound.continueAsNew!(input, next) : next(input)),
    getLogAttributes: (input, next) => (traced ? traced.outbound.getLogAttributes!(input, next) : next(input)),
  };
  const internals: WorkflowInternalsInterceptor = {
    dispose: (input, next) => (traced ? traced.internals.dispose!(input, next) : next(input)),
  };
  return { inbound: [inbound], outbound: [outbound], internals: [internals] };
};
