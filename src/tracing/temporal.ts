// Temporal's OpenTelemetry interceptors, when traces are on. The client's start a span per call
// (StartWorkflow:<type>, …) and put the trace context into the workflow's headers; the workflow's
// (src/tracing/workflow-interceptors.ts, in the bundle) continue it; the activities' run each
// attempt in a span (RunActivity:<type>) under it.
import type { ClientInterceptors } from '@temporalio/client';
import type { InjectedSinks, WorkerOptions } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import { tracing } from './tracing.ts';

/** For every Client that starts or signals workflows (the API's, the relay's, the worker's). */
export function temporalClientInterceptors(): ClientInterceptors | undefined {
  const t = tracing();
  return t && { workflow: [new t.temporal.OpenTelemetryWorkflowClientInterceptor()] };
}

/**
 * The worker's side. The sink is registered with traces off too (as a no-op): a workflow started
 * by a process with traces on still exports its spans through it, and an unregistered sink
 * would be logged as an error on every workflow task.
 */
export function temporalWorkerOptions(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const t = tracing();
  const sinks: InjectedSinks<OpenTelemetrySinks> = {
    exporter: t ? t.temporal.makeWorkflowExporter(t.spanProcessor, t.resource) : { export: { fn: () => undefined } },
  };
  if (!t) return { sinks };
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } = t.temporal;
  return {
    sinks,
    interceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
  };
}
