// The one handler behind every /public/v1 route (the HTTP app has authenticated and rate-limited
// the caller): read and check input, honour Idempotency-Key on idempotent routes, and run the
// route's GraphQL operation on the shared schema. Each route's operation is fixed, so it is
// compiled once to a JavaScript function (graphql-jit): the same resolvers, coercion and
// errors as graphql-js's `execute`, without re-walking the document for every field of every
// request (that walk was most of the facade's cost on lists).
import { Kind, parse, validate, type GraphQLError, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { schema } from './schema.ts';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import type { RequestAuth } from './authenticate.ts';
import { readJsonBody } from '../validation/request-body.ts';
import { releaseRequestCaches, REQUEST_CACHES, type GraphQLContext } from '../graphql/context.ts';
import type { RouteDef, RouteInput } from '../rest/route.ts';
import type { PageHold } from '../paging/page-budget.ts';
import { toPage } from '../paging/paging.ts';
import { etagOf, ifMatchVersions } from '../rest/conditional.ts';
import { idempotencyKeyOf, requestHash, runIdempotent, type IdempotencyClaim, type RouteResult } from '../idempotency/idempotency.service.ts';
import { asCallerError } from '../paging/cursor.ts';

interface CompiledRoute {
  def: RouteDef;
  operation: CompiledQuery;
  rootField: string;
}

export function compileRoute(def: RouteDef): CompiledRoute {
  const document = parse(def.operation);
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`route ${def.operationId}: ${errors.map((e) => e.message).join('; ')}`);
  const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const first = op?.selectionSet.selections[0];
  if (!op || op.selectionSet.selections.length !== 1 || first?.kind !== Kind.FIELD) {
    throw new Error(`route ${def.operationId}: the operation must select exactly one root field`);
  }
  // Built-in scalars and enums are copied as they are, not passed through their serializers: the
  // values come from our typed representations (every enum's values are its names), and each
  // serializer call allocated the field's error location and path on every leaf of every list
  // item. Null checks of non-null fields stay; custom scalars (DateTime, JSON) still serialize;
  // the conformance tests check every answer against the OpenAPI document.
  const operation = compileQuery(schema, document, undefined, { disableLeafSerialization: true });
  if (!isCompiledQuery(operation)) throw new Error(`route ${def.operationId}: ${operation.errors?.map((e) => e.message).join('; ')}`);
  return { def, operation, rootField: first.alias?.value ?? first.name.value };
}

interface RestRequest {
  request: Request;
  params: Record<string, string>;
  query: Record<string, string>;
  requestId: string;
  /** Resolved by the HTTP app, which authenticates and rate-limits before the route runs. */
  auth: RequestAuth;
  /** The request's page memory (paging/page-budget.ts), held until the answer is made. */
  pageHold?: PageHold;
  /** Counts `extra` more requests against the caller's allowance (a bulk request's further items), or throws 429. */
  chargeRequests?: (extra: number) => Promise<void>;
}

function parseOrThrow<T>(schemaDef: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }, value: unknown, onFail: (issues: { path: PropertyKey[]; message: string }[]) => AppError): T {
  const r = schemaDef.safeParse(value);
  if (!r.success) throw onFail(r.error.issues);
  return r.data;
}

/** The first error of a GraphQL result, as the AppError it came from (or a masked internal error). */
function errorFromResult(errors: readonly GraphQLError[]): unknown {
  const first = errors[0];
  return asCallerError(first.originalError ?? first);
}

export async function runRoute(route: CompiledRoute, req: RestRequest): Promise<RouteResult> {
  const { def } = route;
  const idempotencyKey = def.idempotent ? idempotencyKeyOf(req.request.headers) : null;

  const params = def.params
    ? parseOrThrow(def.params, req.params, () => new AppError('not_found', `No such ${def.tag.toLowerCase()} record`))
    : req.params;
  const query = def.query
    ? parseOrThrow(def.query, req.query, (issues) =>
        new AppError('validation_failed', 'A query parameter is not valid', {
          errors: fromZodIssues(issues).map((e) => ({ ...e, path: `query${e.path}` })),
        }),
      )
    : {};
  let raw: unknown;
  let body: unknown;
  if (def.body) {
    raw = await readJsonBody(req.request);
    body = parseOrThrow(def.body, raw, (issues) =>
      new AppError('validation_failed', 'The body did not pass validation', { errors: fromZodIssues(issues) }),
    );
  }

  // A read with If-Match (RFC 9110 §13.1.1: the condition applies to any method) answers 412 when
  // the record is at another version; the header is parsed before the read, so a malformed one
  // costs nothing.
  if (def.method === 'GET' && def.ifMatch) {
    const versions = ifMatchVersions(req.request.headers);
    const result = withEtag(def, await executeRoute(route, req, { params, query, body, headers: req.request.headers }));
    const version = (result.body as { version?: unknown } | null)?.version;
    if (versions && !versions.includes(version as number)) throw new AppError('precondition_failed', 'The record is no longer at a version If-Match names');
    return result;
  }
  const run = (claim?: IdempotencyClaim) => executeRoute(route, req, { params, query, body, headers: req.request.headers }, claim);
  const principal = req.auth.principal;
  // Input that fails validation above never claims a key (nothing ran, a corrected retry may reuse it).
  if (idempotencyKey === null || principal?.kind !== 'apiKey') return withEtag(def, await run());
  const hash = requestHash(def.method, new URL(req.request.url).pathname, raw);
  return withEtag(
    def,
    await runIdempotent(
      { apiKeyId: principal.apiKey.id, key: idempotencyKey, requestHash: hash, requestId: req.requestId, successStatus: def.status ?? 200 },
      run,
    ),
  );
}

/** A versioned record's answer (a replayed one too) carries its version as ETag; one that carries a secret, no-store. */
function withEtag(def: RouteDef, result: RouteResult): RouteResult {
  const version = def.etag ? (result.body as { version?: unknown } | null)?.version : undefined;
  const headers = {
    ...result.headers,
    ...(typeof version === 'number' ? { ETag: etagOf(version) } : {}),
    ...(def.carriesSecret ? { 'Cache-Control': 'no-store' } : {}),
  };
  return { ...result, headers };
}

async function executeRoute(route: CompiledRoute, req: RestRequest, input: RouteInput, idempotencyClaim?: IdempotencyClaim): Promise<RouteResult> {
  const { def } = route;
  // Written out (no spread): a literal with spreads, a symbol-keyed one most of all, was ~5% of GET /me's CPU.
  const contextValue: GraphQLContext = {
    principal: req.auth.principal,
    credentials: req.auth.credentials,
    requestId: req.requestId,
    restRoute: def.operationId,
    idempotencyClaim,
    pageHold: req.pageHold,
    chargeRequests: req.chargeRequests,
    [REQUEST_CACHES]: {},
  };
  let result;
  try {
    result = await route.operation.query(undefined, contextValue, def.variables?.(input) ?? {});
  } finally {
    releaseRequestCaches(contextValue);
  }
  if (result.errors?.length) throw errorFromResult(result.errors);
  const data = (result.data as Record<string, unknown>)[route.rootField];
  if (def.paged) {
    const page = toPage(data as Parameters<typeof toPage>[0], req.request.url);
    return { status: def.status ?? 200, body: page.body, headers: page.headers };
  }
  return { status: def.statusOf?.(data) ?? def.status ?? 200, body: data, headers: {} };
}
