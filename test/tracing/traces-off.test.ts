// Traces off (no OTEL_EXPORTER_OTLP_ENDPOINT, the default): nothing is installed, no trace
// context is written or sent, and deliveries go out as before through the same worker (whose
// workflow interceptors then step aside). Also the variables' parsing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config.ts';
import { startTracing } from '../../src/tracing/tracing.ts';
import { temporalClientInterceptors, temporalWorkerOptions } from '../../src/tracing/temporal.ts';
import { prisma } from '../../src/db/db.ts';
import { deliveryRunWorkflowId } from '../../src/webhooks/delivery/ids.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { startServiceDeliveryStack } from '../support/delivery-stack.ts';
import { ticketBody } from '../tickets/helpers.ts';
import { createTestCa, startReceiver, type Receiver } from '../webhooks/receiver.ts';

// This file's configuration, handed in before anything reads it: no endpoint, whatever the shell has.
loadConfig({ ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: undefined, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });

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
    const workflowId = deliveryRunWorkflowId(subscription.body.id);
    const handle = temporalClient.workflow.getHandle(workflowId);
    expect(await handle.result()).toEqual({ attempted: 1, ended: 'idle' });
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
