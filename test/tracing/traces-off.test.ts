// Traces off (no OTEL_EXPORTER_OTLP_ENDPOINT, the default): nothing is installed, no trace
// context is written or sent, and deliveries go out as before through the same worker (whose
// workflow interceptors then step aside). Also the variables' parsing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCa, startReceiver, type Receiver } from '../webhooks/receiver.ts';

delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';

const { startTracing } = await import('../../src/tracing/tracing.ts');
const { temporalClientInterceptors, temporalWorkerOptions } = await import('../../src/tracing/temporal.ts');
const { parseConfig } = await import('../../src/config.ts');
const { api, createTestWorkspace } = await import('../support/fixtures.ts');
const { ticketBody } = await import('../tickets/helpers.ts');
const { prisma } = await import('../../src/db/db.ts');
const { eventWorkflowId } = await import('../../workflows/delivery/ids.ts');
const { startServiceDeliveryStack } = await import('../support/delivery-stack.ts');

/** Where the OpenTelemetry API keeps whatever is installed (tracer provider, context manager, propagator). */
const otelGlobal = () => (globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')];

const stops: (() => Promise<unknown>)[] = [];
let receiver: Receiver;
let temporalClient: import('@temporalio/client').Client;


beforeAll(async () => {
  expect(await startTracing()).toBeUndefined();
  const tls = createTestCa();
  receiver = await startReceiver(tls);
  receiver.respond('/hook', { status: 204 });
  stops.push(() => receiver.close());
  const stack = await startServiceDeliveryStack({ tls });
  temporalClient = stack.client;
  stops.push(() => stack.stop());
}, 240_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}, 60_000);

describe('traces off', () => {
  it('install nothing, and deliveries carry no trace context', { timeout: 120_000 }, async () => {
    expect(otelGlobal()).toBeUndefined();
    expect(temporalClientInterceptors()).toBeUndefined();
    expect(temporalWorkerOptions().interceptors).toBeUndefined();

    const ws = await createTestWorkspace('Traces off');
    const key = (await ws.key()).value;
    const subscription = await api('POST', '/webhooks', { key, body: { url: `${receiver.origin}/hook`, events: ['ticket.created'] } });
    expect(subscription.status, subscription.text).toBe(201);
    const created = await api('POST', '/tickets', { key, body: ticketBody(ws), headers: { traceparent: `00-${'c'.repeat(32)}-${'d'.repeat(16)}-01` } });
    expect(created.status, created.text).toBe(201);
    const event = await prisma.event.findFirstOrThrow({ where: { ticketId: created.body.id, type: 'ticket.created' } });
    expect(event.traceparent).toBeNull();

    await expect.poll(() => receiver.received('/hook').map((r) => r.headers['webhook-id']), { timeout: 90_000, interval: 200 }).toEqual([event.id]);
    const workflowId = eventWorkflowId(event.id);
    const handle = temporalClient.workflow.getHandle(workflowId);
    expect(await handle.result()).toMatchObject({ deliveries: [{ subscriptionId: subscription.body.id, status: 'succeeded', attempt: 1 }] });
    const history = await handle.fetchHistory();
    expect(Object.keys(history.events![0].workflowExecutionStartedEventAttributes!.header?.fields ?? {})).toEqual([]);
    expect(otelGlobal()).toBeUndefined();
  });
});

describe('trace settings', () => {
  it('are off unless an http(s) endpoint is given, and name the traces URL after it', () => {
    expect(parseConfig({}).tracing).toBeUndefined();
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).tracing).toBeUndefined();
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      serviceName: 'ticketing',
    });
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com/prefix', OTEL_SERVICE_NAME: 'tickets-eu' }).tracing).toEqual({
      tracesUrl: 'https://otlp.example.com/prefix/v1/traces',
      serviceName: 'tickets-eu',
    });
    expect(() => parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});
