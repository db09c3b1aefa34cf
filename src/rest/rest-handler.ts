// The one handler behind every /public/v1 route: authenticate, read and check input, run the
// route's GraphQL operation on the shared schema, and answer JSON or problem+json.
import { execute, parse, validate, type DocumentNode, type GraphQLError, type OperationDefinitionNode } from 'graphql';
import { schema } from '../graphql/schema.ts';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { authenticateRequest } from '../auth/authenticate.ts';
import { readJsonBody } from '../http/request-body.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import type { RouteDef } from './route.ts';
import { toPage } from './paging.ts';

export interface CompiledRoute {
  def: RouteDef;
  document: DocumentNode;
  rootField: string;
}

export function compileRoute(def: RouteDef): CompiledRoute {
  const document = parse(def.operation);
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`route ${def.operationId}: ${errors.map((e) => e.message).join('; ')}`);
  const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  const first = op?.selectionSet.selections[0];
  if (!op || op.selectionSet.selections.length !== 1 || first?.kind !== 'Field') {
    throw new Error(`route ${def.operationId}: the operation must select exactly one root field`);
  }
  return { def, document, rootField: first.alias?.value ?? first.name.value };
}

export interface RestRequest {
  request: Request;
  params: Record<string, string>;
  query: Record<string, string>;
  requestId: string;
}

function parseOrThrow<T>(schemaDef: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }, value: unknown, onFail: (issues: { path: PropertyKey[]; message: string }[]) => AppError): T {
  const r = schemaDef.safeParse(value);
  if (!r.success) throw onFail(r.error.issues);
  return r.data;
}

/** The first error of a GraphQL result, as the AppError it came from (or a masked internal error). */
export function errorFromResult(errors: readonly GraphQLError[]): unknown {
  const first = errors[0];
  return first.originalError ?? first;
}

export async function runRoute(route: CompiledRoute, req: RestRequest): Promise<{ status: number; body: unknown; headers: Record<string, string> }> {
  const { def } = route;
  const auth = await authenticateRequest(req.request.headers, { required: true });

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
  let body: unknown;
  if (def.body) {
    const raw = await readJsonBody(req.request);
    body = parseOrThrow(def.body, raw, (issues) =>
      new AppError('validation_failed', 'The body did not pass validation', { errors: fromZodIssues(issues) }),
    );
  }

  const contextValue: GraphQLContext = { ...auth, requestId: req.requestId };
  const result = await execute({
    schema,
    document: route.document,
    contextValue,
    variableValues: def.variables?.({ params, query, body }) ?? {},
  });
  if (result.errors?.length) throw errorFromResult(result.errors);
  const data = (result.data as Record<string, unknown>)[route.rootField];
  if (def.paged) {
    const page = toPage(data as Parameters<typeof toPage>[0], req.request.url);
    return { status: def.status ?? 200, body: page.body, headers: page.headers };
  }
  return { status: def.status ?? 200, body: data, headers: {} };
}
