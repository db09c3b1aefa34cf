// A server span per API request, when traces are on: named `<METHOD> <route template>` (the REST
// route as the OpenAPI document writes it), or after the GraphQL operation on /graphql.
//
// Every request starts a new trace. A caller's `traceparent` is kept as a link only, never as
// the parent: a public caller could otherwise choose our trace ids (joining or polluting other
// traces) and force sampling of every request it sends. The link still lets a caller's trace
// and ours be found from each other.
import {
  context,
  createContextKey,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
  type Span,
} from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { tracing } from './tracing.ts';

const REQUEST_SPAN = createContextKey('ticketing request span');

interface RequestSpan {
  span: Span;
  /** Set by the GraphQL plugin: the span's name instead of the route's. */
  name?: string;
}

/** Longest GraphQL operation name put into a span name (names are the caller's choice). */
const MAX_OPERATION_NAME = 100;

/** The caller's W3C trace context (traceparent alone), as a link. */
function callerLink(headers: Headers): Link[] {
  const traceparent = headers.get('traceparent');
  if (!traceparent) return [];
  const caller = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
  return caller && isSpanContextValid(caller) ? [{ context: caller }] : [];
}

/** Hono's `/tickets/:id` as OpenAPI's `/tickets/{id}`. */
const routeTemplate = (path: string) => path.replace(/:(\w+)/g, '{$1}');

export const traceRequests: MiddlewareHandler = async (c, next) => {
  if (!tracing()) return next();
  const tracer = trace.getTracer('ticketing-http');
  const url = new URL(c.req.url);
  const request: Partial<RequestSpan> = {};
  const attributes = { 'http.request.method': c.req.method, 'url.path': url.pathname, 'url.scheme': url.protocol.slice(0, -1) };
  const options = { kind: SpanKind.SERVER, root: true, links: callerLink(c.req.raw.headers), attributes };
  await tracer.startActiveSpan(c.req.method, options, context.active().setValue(REQUEST_SPAN, request), async (span) => {
    request.span = span;
    try {
      await next();
    } finally {
      // The route that answered (after `next`, Hono's route index points at it).
      const route = routeTemplate(routePath(c));
      span.setAttribute('http.route', route);
      span.updateName(request.name ?? `${c.req.method} ${route}`);
      span.setAttribute('http.response.status_code', c.res.status);
      const requestId = c.res.headers.get('x-request-id');
      if (requestId) span.setAttribute('ticketing.request_id', requestId);
      // Server spans: only 5xx are the server's failures.
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  });
};

/** Names the request's span after its GraphQL operation (`mutation CreateTicket`), with its attributes. */
export const traceGraphQLOperation: Plugin = {
  onExecute({ args }) {
    const request = context.active().getValue(REQUEST_SPAN) as RequestSpan | undefined;
    if (!request?.span) return;
    const operation = getOperationAST(args.document as DocumentNode, args.operationName as string | undefined);
    if (!operation) return;
    const name = operation.name?.value.slice(0, MAX_OPERATION_NAME);
    request.name = name ? `${operation.operation} ${name}` : operation.operation;
    request.span.setAttribute('graphql.operation.type', operation.operation);
    if (name) request.span.setAttribute('graphql.operation.name', name);
  },
};
