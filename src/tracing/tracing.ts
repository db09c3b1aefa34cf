// Traces with OpenTelemetry, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
// Off (the default), nothing is installed: the SDK is never imported, the OpenTelemetry API stays
// its own no-op, and every helper here returns at its first line.
//
// One trace goes from an API request to its webhook attempts: the request's server span
// (http.ts) is current while services write events, the outbox row keeps its traceparent
// (currentTraceparent), the relay starts each delivery workflow inside it (inStoredTrace), and
// Temporal's interceptors (temporal.ts) carry it into the workflow and its activities.
import { context, isSpanContextValid, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Resource } from '@opentelemetry/resources';
import { config, type Config } from '../config.ts';

type TracingSettings = NonNullable<Config['tracing']>;

/** What the Temporal interceptors need of the installed SDK (temporal.ts). */
interface InstalledTracing {
  spanProcessor: SpanProcessor;
  resource: Resource;
  temporal: typeof import('@temporalio/interceptors-opentelemetry');
  /** Exports the spans that ended so far. */
  forceFlush(): Promise<void>;
  /** Exports what is left, then uninstalls (the API is a no-op again). */
  shutdown(): Promise<void>;
}

let installed: InstalledTracing | undefined;

export const tracing = (): InstalledTracing | undefined => installed;

/**
 * Installs the SDK (global tracer provider, AsyncLocalStorage context, W3C propagator) when
 * traces are configured; resolves to undefined, having loaded nothing, when they are not.
 */
export async function startTracing(settings: TracingSettings | undefined = config.tracing): Promise<InstalledTracing | undefined> {
  if (!settings || installed) return installed;
  // Loaded only here, so that a process without traces never loads the SDK.
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, { Resource }, { ATTR_SERVICE_NAME }, temporal] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
    import('@temporalio/interceptors-opentelemetry'),
  ]);
  const resource = new Resource({ [ATTR_SERVICE_NAME]: settings.serviceName });
  // Batched: a request never waits for the collector, and an unreachable one costs dropped spans only.
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  installed = {
    spanProcessor,
    resource,
    temporal,
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      installed = undefined;
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  return installed;
}

/** The current span as a W3C traceparent, for the outbox row; null when there is none (traces off). */
export function currentTraceparent(): string | null {
  if (!installed) return null;
  const span = trace.getSpanContext(context.active());
  if (!span || !isSpanContextValid(span)) return null;
  return `00-${span.traceId}-${span.spanId}-${span.traceFlags.toString(16).padStart(2, '0')}`;
}

/** Runs `fn` as a continuation of the stored trace (the relay starting an event's workflows). */
export function inStoredTrace<T>(traceparent: string | null, fn: () => T): T {
  if (!installed || !traceparent) return fn();
  return context.with(propagation.extract(ROOT_CONTEXT, { traceparent }), fn);
}

/** Attributes on the current span (an attempt's RunActivity span); nothing with traces off. */
export function annotateSpan(attributes: Record<string, string | number | undefined>): void {
  if (!installed) return;
  const span = trace.getActiveSpan();
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) span?.setAttribute(key, value);
}
