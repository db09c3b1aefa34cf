// Generates the OpenAPI 3.1 document from the route table and the GraphQL schema: response
// schemas are derived from each route's selection set, request schemas from its zod inputs.
import { z } from 'zod';
import {
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  type GraphQLOutputType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type GraphQLObjectType,
} from 'graphql';
import { schema } from '../graphql/schema.ts';
import { errorTable, problemTypeUri } from '../errors/errors.ts';
import { routes } from './routes.ts';
import type { RouteDef } from './route.ts';

type JsonSchema = Record<string, unknown>;

const scalarSchemas: Record<string, JsonSchema> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  ID: { type: 'string' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: {},
};

function outputSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined): JsonSchema {
  if (isNonNullType(type)) return outputSchema(type.ofType, selection);
  if (isListType(type)) return { type: 'array', items: nullableOf(type.ofType, selection) };
  if (isScalarType(type)) return scalarSchemas[type.name] ?? {};
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.value) };
  if (isObjectType(type)) return objectSchema(type, selection);
  return {};
}

function nullableOf(type: GraphQLOutputType, selection: SelectionSetNode | undefined): JsonSchema {
  const inner = outputSchema(type, selection);
  if (isNonNullType(type)) return inner;
  return { anyOf: [inner, { type: 'null' }] };
}

function objectSchema(type: GraphQLObjectType, selection: SelectionSetNode | undefined): JsonSchema {
  const fields = type.getFields();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const sel of selection?.selections ?? []) {
    if (sel.kind !== 'Field' || sel.name.value === '__typename') continue;
    const field = fields[sel.name.value];
    const name = sel.alias?.value ?? sel.name.value;
    properties[name] = { ...nullableOf(field.type, sel.selectionSet), ...(field.description ? { description: field.description } : {}) };
    required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The JSON schema of a route's success body, derived from its GraphQL selection. */
export function responseSchema(route: RouteDef): JsonSchema {
  const doc = parse(route.operation);
  const op = doc.definitions[0] as OperationDefinitionNode;
  const rootType = op.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  const sel = op.selectionSet.selections[0];
  if (sel.kind !== 'Field') throw new Error('root selection must be a field');
  const field = rootType.getFields()[sel.name.value];
  if (!route.paged) return outputSchema(field.type, sel.selectionSet);
  // Connection: edges { node { … } } becomes data: [ … ].
  const edges = sel.selectionSet?.selections.find((s) => s.kind === 'Field' && s.name.value === 'edges');
  const node = edges?.kind === 'Field' ? edges.selectionSet?.selections.find((s) => s.kind === 'Field' && s.name.value === 'node') : undefined;
  const connection = getNamedType(field.type) as GraphQLObjectType;
  const edgeType = getNamedType(connection.getFields().edges.type) as GraphQLObjectType;
  const nodeType = edgeType.getFields().node.type;
  return {
    type: 'object',
    properties: {
      data: { type: 'array', items: outputSchema(nodeType, node?.kind === 'Field' ? node.selectionSet : undefined) },
      nextCursor: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Pass as `cursor` for the next page; null on the last page' },
    },
    required: ['data', 'nextCursor'],
    additionalProperties: false,
  };
}

const problemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details. Compare on `code`, a stable machine word.',
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(errorTable) },
    requestId: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { path: { type: 'string' }, message: { type: 'string' } },
        required: ['path', 'message'],
        additionalProperties: false,
      },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
  additionalProperties: false,
};

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

const toJsonSchema = (s: z.ZodType) => z.toJSONSchema(s, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;

function parameters(route: RouteDef) {
  const out: unknown[] = [];
  for (const [where, obj] of [['path', route.params], ['query', route.query]] as const) {
    if (!obj) continue;
    const js = toJsonSchema(obj) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      const { description, ...rest } = s as { description?: string };
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: rest, ...(description ? { description } : {}) });
    }
  }
  if (route.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Up to 255 printable characters; a repeat within 24 h replays the first response',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return out;
}

/** `serverUrl` is the deployment's PUBLIC_BASE_URL when served; the checked-in file uses the local default. */
export function buildOpenApiDocument(serverUrl = 'http://localhost:3000/public/v1') {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const status = String(route.status ?? 200);
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      parameters: parameters(route),
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: toJsonSchema(route.body) } } } }
        : {}),
      responses: {
        [status]:
          status === '204'
            ? { description: 'Done' }
            : { description: 'Success', content: { 'application/json': { schema: responseSchema(route) } } },
        '400': problem('Malformed JSON or header'),
        '401': problem('Missing, unknown, revoked or expired key'),
        '403': problem('The key lacks the scope'),
        '404': problem('Absent, or not visible to the key’s role'),
        ...(route.body ? { '413': problem('Body over 1 MiB'), '415': problem('Body is not JSON') } : {}),
        '422': problem('Validation failed'),
        '429': problem('Rate limited; see Retry-After'),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ticketing Service Public API',
      version: '1.0.0',
      description:
        'Every call sends `Authorization: Bearer <API_KEY>`. Errors are RFC 9457 problem details ' +
        '(`application/problem+json`) with a stable `code`; problem `type` URIs are `' +
        problemTypeUri('not_found').replace('not-found', '<code>') +
        '`. Lists use cursor paging: `?limit=` (default 50, max 100) and `?cursor=`, body `{data, nextCursor}`, and a `Link: <…>; rel="next"` header.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key, `svc_…`' } },
      schemas: { Problem: problemSchema },
    },
  };
}
