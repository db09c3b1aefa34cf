// A minimal OTLP/HTTP trace receiver on loopback: takes POST /v1/traces as the service's exporter
// sends it (OTLP JSON, ids in hex) and keeps every span with its resource's service.name.
import http from 'node:http';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  links: { traceId: string; spanId: string }[];
  service: string | undefined;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const valueOf = (v: AnyValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue;
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map((kv) => [kv.key, valueOf(kv.value)]));

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Requests to other paths or in other media types (the exporter should send none). */
  refused: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !req.headers['content-type']?.startsWith('application/json')) {
        refused.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest;
      for (const rs of body.resourceSpans ?? []) {
        const service = attributesOf(rs.resource?.attributes)['service.name'] as string | undefined;
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
              links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
              service,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
