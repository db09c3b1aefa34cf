// Traces on (OTEL_EXPORTER_OTLP_ENDPOINT set): a ticket created through the REST API and its
// webhook delivery make one trace, exported over OTLP/HTTP to a receiver on loopback. The
// service's own worker (src/worker.ts, which bundles the workflows with their interceptors), the
// outbox relay and a Temporal dev server (the test kit's service delivery stack) deliver it to an
// HTTPS receiver.
//
// The configuration is this file's (loadConfig), handed in before anything reads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTracing } from '../../src/tracing/tracing.ts';
import { prisma } from '../../src/db/db.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { startServiceDeliveryStack } from '../support/delivery-stack.ts';
import { ticketBody } from '../tickets/helpers.ts';
import { createTestCa, startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';

const otlp = await startOtlpReceiver();
loadConfig({ ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_SERVICE_NAME: 'traces-test', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });

const SERVER = 2;
const stops: (() => Promise<unknown>)[] = [];
let traces: NonNullable<Awaited<ReturnType<typeof startTracing>>>;
let receiver: Receiver;
let key: string;
let ws: Awaited<ReturnType<typeof createTestWorkspace>>;


/** Flushes the service's spans until `find` finds what it looks for in what the receiver got. */
async function exported<T>(what: string, find: (spans: ReceivedSpan[]) => T | undefined, timeoutMs = 90_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    await traces.forceFlush();
    const found = find(otlp.spans);
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; spans: ${otlp.spans.map((s) => s.name).join(', ')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The names from a span up to its trace's root, following parent ids; every span in one trace. */
function chainOf(span: ReceivedSpan, spans: ReceivedSpan[]): string[] {
  const chain = [span];
  for (let s = span; s.parentSpanId; ) {
    const parent = spans.find((p) => p.spanId === s.parentSpanId && p.traceId === s.traceId);
    if (!parent) break;
    chain.push((s = parent));
  }
  return chain.map((s) => s.name);
}

beforeAll(async () => {
  traces = (await startTracing())!;
  expect(traces).toBeDefined();
  stops.push(() => otlp.close(), () => traces.shutdown());

  const tls = createTestCa();
  receiver = await startReceiver(tls);
  receiver.respond('/hook', { status: 204 });
  stops.push(() => receiver.close());
  ws = await createTestWorkspace('Traces');
  key = (await ws.key()).value;

  const stack = await startServiceDeliveryStack({ tls });
  stops.push(() => stack.stop());
}, 240_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}, 60_000);

describe('traces', () => {
  it('link a REST request to its webhook attempt through the outbox and the delivery run (started by that event)', { timeout: 150_000 }, async () => {
    const subscription = await api('POST', '/webhooks', { key, body: { url: `${receiver.origin}/hook`, events: ['ticket.created'] } });
    expect(subscription.status, subscription.text).toBe(201);
    const caller = { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16) };
    const created = await api('POST', '/tickets', { key, body: ticketBody(ws), headers: { traceparent: `00-${caller.traceId}-${caller.spanId}-01` } });
    expect(created.status, created.text).toBe(201);

    const event = await prisma.event.findFirstOrThrow({ where: { ticketId: created.body.id, type: 'ticket.created' } });
    const request = await exported('the request span', (spans) =>
      spans.find((s) => s.name === 'POST /public/v1/tickets' && s.attributes['ticketing.request_id'] === created.headers.get('x-request-id')),
    );
    expect(request).toMatchObject({
      kind: SERVER,
      parentSpanId: undefined,
      service: 'traces-test',
      attributes: { 'http.request.method': 'POST', 'http.route': '/public/v1/tickets', 'http.response.status_code': 201 },
    });
    // The caller's trace context is a link, not the parent: a new trace of our own.
    expect(request.traceId).not.toBe(caller.traceId);
    expect(request.links).toEqual([caller]);
    // The outbox row carries the request's span.
    expect(event.traceparent).toBe(`00-${request.traceId}-${request.spanId}-01`);

    const attempt = await exported("the attempt span and its workflow's", (spans) => {
      const found = spans.find((s) => s.name === 'RunActivity:sendBatch' && s.attributes['webhook.event.id'] === event.id);
      // The workflow's spans are exported when its run ends, after the attempt's.
      return found && spans.some((s) => s.name === 'RunWorkflow:deliveryRunWorkflow' && s.traceId === found.traceId) ? found : undefined;
    });
    expect(chainOf(attempt, otlp.spans)).toEqual([
      'RunActivity:sendBatch',
      'StartActivity:sendBatch',
      'RunWorkflow:deliveryRunWorkflow',
      'SignalWithStartWorkflow:deliveryRunWorkflow',
      'POST /public/v1/tickets',
    ]);
    expect(attempt.traceId).toBe(request.traceId);
    expect(attempt).toMatchObject({
      service: 'traces-test',
      attributes: {
        'webhook.subscription.id': subscription.body.id,
        'webhook.attempt': 1,
        'webhook.outcome': 'succeeded',
        'http.response.status_code': 204,
      },
    });
    expect(receiver.received('/hook').map((r) => r.headers['webhook-id'])).toEqual([event.id]);
    expect(otlp.refused).toEqual([]);
  });

  it('name a GraphQL request after its operation', async () => {
    const res = await api('POST', '/graphql', { key, body: { query: 'query TracedProbe { __typename }' } });
    expect(res.status, res.text).toBe(200);
    const span = await exported('the GraphQL request span', (spans) => spans.find((s) => s.name === 'query TracedProbe'));
    expect(span).toMatchObject({
      kind: SERVER,
      attributes: { 'http.route': '/graphql', 'graphql.operation.type': 'query', 'graphql.operation.name': 'TracedProbe', 'http.response.status_code': 200 },
    });
  });
});
