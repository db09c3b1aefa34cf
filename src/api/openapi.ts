// Generates the OpenAPI 3.1 document from the route table and the GraphQL schema: response
// schemas are derived from each route's selection set, request schemas from its zod inputs, and
// the scopes of each operation from its GraphQL field's authScopes (the rule that enforces them).
import { z } from 'zod';
import {
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  type GraphQLField,
  type GraphQLOutputType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type GraphQLObjectType,
} from 'graphql';
import { schema } from './schema.ts';
import { errorTable, problemTypeUri, type ErrorCode } from '../errors/errors.ts';
import { API_SCOPES } from '../access/principal.ts';
import { MAX_BODY_BYTES } from '../validation/request-body.ts';
import { WINDOW_SECONDS } from '../rate-limit/request-rate-limiter.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../paging/paging.ts';
import { TEXT_RULE_NOTE } from '../validation/text.ts';
import { routes } from './routes.ts';
import { IF_MATCH_PATTERN, MAX_IF_MATCH_CHARS, MAX_IF_MATCH_TAGS } from '../rest/conditional.ts';
import type { RouteDef } from '../rest/route.ts';
import { EVENT_TYPES } from '../events/event.envelope.ts';
import { eventBodySchema, eventCatalogue, exampleEvent } from '../events/event.schemas.ts';

type JsonSchema = Record<string, unknown>;

/**
 * A GraphQL `JSON` value: any JSON value, so no `type` (client generators take a list of five
 * types, `array` without `items`, badly; oapi-codegen refuses it). A `JSON!` is never null.
 */
const ANY_JSON: JsonSchema = { description: 'Any JSON value' };

const scalarSchemas: Record<string, JsonSchema> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  ID: { type: 'string' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: ANY_JSON,
};

/** The schema that also admits null: `type` lists gain `null` (OpenAPI 3.1 has no `nullable`). */
function orNull(s: JsonSchema): JsonSchema {
  // Untyped admits null already.
  if (s === ANY_JSON) return s;
  if (typeof s.type === 'string' || Array.isArray(s.type)) {
    return { ...s, type: [s.type, 'null'].flat(), ...(Array.isArray(s.enum) ? { enum: [...s.enum, null] } : {}) };
  }
  return { anyOf: [s, { type: 'null' }] };
}

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
  return isNonNullType(type) ? inner : orNull(inner);
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

/** The route's GraphQL root field and its selection. */
function rootFieldOf(route: RouteDef): { field: GraphQLField<unknown, unknown>; selection: SelectionSetNode | undefined } {
  const op = parse(route.operation).definitions[0] as OperationDefinitionNode;
  const rootType = op.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  const sel = op.selectionSet.selections[0];
  if (sel.kind !== 'Field') throw new Error(`route ${route.operationId}: the root selection must be a field`);
  return { field: rootType.getFields()[sel.name.value], selection: sel.selectionSet };
}

const isMutation = (route: RouteDef) => (parse(route.operation).definitions[0] as OperationDefinitionNode).operation === 'mutation';

/** The JSON schema of a route's success body, derived from its GraphQL selection. */
export function responseSchema(route: RouteDef): JsonSchema {
  const { field, selection } = rootFieldOf(route);
  if (!route.paged) return outputSchema(field.type, selection);
  const itemSchema = route.itemSchema;
  // Connection: edges { node { … } } becomes data: [ … ].
  const edges = selection?.selections.find((s) => s.kind === 'Field' && s.name.value === 'edges');
  const node = edges?.kind === 'Field' ? edges.selectionSet?.selections.find((s) => s.kind === 'Field' && s.name.value === 'node') : undefined;
  const connection = getNamedType(field.type) as GraphQLObjectType;
  const edgeType = getNamedType(connection.getFields().edges.type) as GraphQLObjectType;
  const nodeType = edgeType.getFields().node.type;
  return {
    type: 'object',
    properties: {
      data: { type: 'array', items: itemSchema ?? outputSchema(nodeType, node?.kind === 'Field' ? node.selectionSet : undefined) },
      nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page' },
    },
    required: ['data', 'nextCursor'],
    additionalProperties: false,
  };
}

/**
 * The scopes a route needs, as alternatives (any one suffices); `[[]]` means any valid key.
 * Read from the Pothos `authScopes` of the route's root field, the rule that enforces them, so
 * the document cannot drift from it. Only static scope maps can be documented.
 */
export function scopeAlternatives(route: RouteDef): string[][] {
  const { field } = rootFieldOf(route);
  const authScopes = (field.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions?.authScopes;
  const fail = (why: string) => new Error(`route ${route.operationId}: the field ${field.name} ${why}; the OpenAPI document states each route's scopes`);
  if (!authScopes || typeof authScopes !== 'object') throw fail('needs an authScopes object (a function cannot be documented)');
  const alternatives: string[][] = [];
  for (const [name, value] of Object.entries(authScopes)) {
    if (name === 'scope' && typeof value === 'string') alternatives.push([value]);
    else if (name === 'anyScope' && Array.isArray(value)) alternatives.push(...value.map((s: string) => [s]));
    else if ((name === 'apiKey' || name === 'authenticated') && value === true) alternatives.push([]);
    else throw fail(`uses the scope rule \`${name}\`, which the document cannot express`);
  }
  return alternatives.some((a) => a.length === 0) ? [[]] : alternatives;
}

const needsScope = (route: RouteDef) => scopeAlternatives(route).some((a) => a.length > 0);

const codeList = (codes: readonly string[]) => codes.map((c) => `\`${c}\``).join(', ');

/** Codes only GraphQL callers meet (sign-in, sessions, malformed GraphQL); never on /public/v1. */
const GRAPHQL_ONLY_CODES: ErrorCode[] = ['unauthenticated', 'csrf_failed', 'invalid_request', 'query_too_complex', 'too_many_mutations'];
/** Answered for a path, not by an operation: a known path with another method (documented in `info`). */
const PATH_LEVEL_CODES: ErrorCode[] = ['method_not_allowed'];
const IDEMPOTENCY_CODES: ErrorCode[] = ['idempotency_request_in_progress', 'idempotency_key_reused'];
/** A query changes nothing, so it never meets a role's write permission or a state rule. */
const CHANGE_ONLY_CODES: ErrorCode[] = ['forbidden', 'subscription_limit_reached', 'invalid_state_transition'];
/** Codes of one domain's rules: only on the routes that name them in `codes`. */
const DOMAIN_CODES: ErrorCode[] = ['subscription_limit_reached', 'invalid_state_transition', 'precondition_failed', 'held_delivery_limit_reached'];
/** No route answers these today; listing them would promise answers that never come. */
const UNUSED_CODES: ErrorCode[] = ['conflict'];

const REST_CODES = (Object.keys(errorTable) as ErrorCode[]).filter((c) => !GRAPHQL_ONLY_CODES.includes(c));

const problemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details. Compare on `code`, a stable machine word; `detail` and `title` are for people.',
  properties: {
    type: { type: 'string', format: 'uri', description: '`urn:ticketing:problem:<code with dashes>`' },
    title: { type: 'string', description: 'The fixed title of the code' },
    status: { type: 'integer', description: 'The HTTP status' },
    detail: { type: 'string', description: 'What went wrong with this request' },
    code: {
      type: 'string',
      description: 'A stable machine word (every code, with its status, is listed in the API description)',
      enum: REST_CODES,
    },
    requestId: { type: 'string', description: 'The `X-Request-Id` of this request' },
    errors: {
      type: 'array',
      description: 'With `validation_failed`: each offending member',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'JSON pointer into the body (`/fields/0/value`), or `query/<name>` for a query parameter' },
          message: { type: 'string' },
        },
        required: ['path', 'message'],
        additionalProperties: false,
      },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
  additionalProperties: false,
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

type HeaderName = 'X-Request-Id' | 'RateLimit-Policy' | 'RateLimit' | 'Retry-After' | 'Idempotent-Replayed' | 'Link' | 'WWW-Authenticate' | 'ETag';

const responseHeaders: Record<HeaderName, JsonSchema> = {
  'X-Request-Id': {
    description: 'The request’s id: the caller’s `X-Request-Id` when it is 1 to 128 of `A-Za-z0-9._:-`, else a new one. Quote it when reporting a problem.',
    required: true,
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: `The key’s quota (draft-ietf-httpapi-ratelimit-headers): \`"default";q=<requests>;w=${WINDOW_SECONDS}\`. On every answer to a request with a valid key (so not on 401).`,
    schema: { type: 'string', pattern: '^"default";q=\\d+;w=\\d+$' },
    example: `"default";q=600;w=${WINDOW_SECONDS}`,
  },
  RateLimit: {
    description: 'What is left of the quota: `"default";r=<remaining>;t=<seconds until the window resets>`. On every answer to a request with a valid key (so not on 401).',
    schema: { type: 'string', pattern: '^"default";r=\\d+;t=\\d+$' },
    example: '"default";r=599;t=60',
  },
  'Retry-After': {
    description: 'Seconds until the quota has room again',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'Idempotent-Replayed': {
    description: '`true` when this answer is the stored answer to an earlier request with the same `Idempotency-Key`; nothing was done again',
    schema: { type: 'string', enum: ['true'] },
  },
  Link: {
    description: '`<path?…&cursor=…>; rel="next"`: the next page (RFC 8288); absent on the last page',
    schema: { type: 'string' },
  },
  ETag: {
    description: 'The record’s `version` as a strong entity tag, `"<version>"`: send it back as `If-Match` to change the record only if nobody changed it since',
    required: true,
    schema: { type: 'string', pattern: '^"[1-9][0-9]*"$' },
  },
  'WWW-Authenticate': {
    description:
      '401: `Bearer error="invalid_token"`. 403 `insufficient_scope`: `Bearer error="insufficient_scope", scope="<scopes>"`, any one of the space-separated scopes would do (absent with `forbidden`).',
    schema: { type: 'string' },
  },
};

const headersOf = (names: HeaderName[]) => Object.fromEntries(['X-Request-Id', 'RateLimit-Policy', 'RateLimit', ...names].map((n) => [n, headerRef(n)]));

/** Codes a status can carry on this route. */
function codesFor(route: RouteDef, status: number | '5XX'): ErrorCode[] {
  return (Object.keys(errorTable) as ErrorCode[]).filter((c) => {
    if (GRAPHQL_ONLY_CODES.includes(c) || PATH_LEVEL_CODES.includes(c)) return false;
    if (IDEMPOTENCY_CODES.includes(c) && !route.idempotent) return false;
    if (CHANGE_ONLY_CODES.includes(c) && !isMutation(route) && !route.codes?.includes(c)) return false;
    if (UNUSED_CODES.includes(c) || (DOMAIN_CODES.includes(c) && !route.codes?.includes(c))) return false;
    if (c === 'invalid_header' && !route.idempotent && !route.ifMatch) return false;
    if (c === 'invalid_json' && !route.body) return false;
    const s = errorTable[c].status;
    return status === '5XX' ? s >= 500 : s === status;
  });
}

/** The problem schemas of the document being built, one per set of codes an answer can carry. */
let problemComponents = new Map<string, JsonSchema>();

/**
 * The problem details whose `code` is one of these, as a component named after them
 * (`ProblemInvalidToken`): a plain `enum` in a whole schema, since client generators merge an
 * `allOf` that narrows a shared schema badly.
 */
function problemWith(codes: ErrorCode[]): JsonSchema {
  const name = `Problem${codes.map((c) => c.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')).join('Or')}`;
  if (!problemComponents.has(name)) {
    const properties = problemSchema.properties as Record<string, JsonSchema>;
    const code = { type: 'string', description: `${codes.length > 1 ? 'One of the codes' : 'The code'} of this answer`, enum: codes };
    problemComponents.set(name, { ...problemSchema, properties: { ...properties, code } });
  }
  return { $ref: `#/components/schemas/${name}` };
}

function problem(route: RouteDef, status: number | '5XX', description: string, headers: HeaderName[] = []) {
  const codes = codesFor(route, status);
  if (!codes.length) throw new Error(`route ${route.operationId}: no error code answers ${status}`);
  return {
    description: `${description}. \`code\`: ${codeList(codes)}.`,
    headers: headersOf(headers),
    content: {
      'application/problem+json': {
        schema: problemWith(codes),
      },
    },
  };
}

/** Every answer an operation can give: the success, then each problem the route can meet. */
function responses(route: RouteDef) {
  const status = route.status ?? 200;
  const replayed: HeaderName[] = route.idempotent ? ['Idempotent-Replayed'] : [];
  const success =
    status === 204
      ? { description: 'Done', headers: headersOf(replayed) }
      : {
          description: route.paged ? 'One page' : 'Success',
          headers: headersOf([...replayed, ...(route.paged ? (['Link'] as const) : []), ...(route.etag ? (['ETag'] as const) : [])]),
          content: { 'application/json': { schema: withComponentRefs(responseSchema(route)) } },
        };
  const mutation = isMutation(route);
  const out: Record<string, unknown> = { [status]: success };
  for (const [other, description] of Object.entries(route.otherSuccess ?? {})) out[other] = { ...success, description };
  if (route.body || route.idempotent || route.ifMatch) {
    const why = [
      route.body && 'the body is not JSON (or not UTF-8)',
      route.idempotent && 'the `Idempotency-Key` header is malformed',
      route.ifMatch && 'the `If-Match` header is malformed',
    ]
      .filter(Boolean)
      .join(', or ');
    out['400'] = problem(route, 400, why[0].toUpperCase() + why.slice(1));
  }
  out['401'] = problem(route, 401, 'The API key is missing, unknown, revoked or expired', ['WWW-Authenticate']);
  if (needsScope(route) || mutation) {
    out['403'] = problem(route, 403, mutation ? 'The key lacks the scope, or its role may not make this change' : 'The key lacks the scope', ['WWW-Authenticate']);
  }
  if (route.params) out['404'] = problem(route, 404, 'No such record, or one the key’s role does not see (never 403)', replayed);
  if (route.idempotent) out['409'] = problem(route, 409, 'The first request with this `Idempotency-Key` is still running; retry later');
  if (route.ifMatch) out['412'] = problem(route, 412, 'The record is no longer at a version `If-Match` names; nothing changed');
  if (route.body) {
    out['413'] = problem(route, 413, `The body is over ${MAX_BODY_BYTES} bytes (1 MiB)`);
    out['415'] = problem(route, 415, 'The body is not sent as `application/json`');
  }
  if (route.query || route.body || route.codes?.some((c) => errorTable[c].status === 422)) {
    out['422'] = problem(route, 422, 'Validation failed; `errors[]` names each offending member', replayed);
  }
  out['429'] = problem(route, 429, 'Over the key’s request quota; retry after `Retry-After` seconds', ['Retry-After']);
  out['5XX'] = problem(route, '5XX', 'A failure on our side; never a stack trace. Retry later');
  return out;
}

/**
 * zod's JSON Schema without `$schema`: in OpenAPI 3.1 every schema already is 2020-12. An
 * integer read from text (decimalInteger, intIdParam) is declared as what it is, `type:
 * integer`, without the digits pattern of its text form, and with its default.
 */
function toJsonSchema(s: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(s, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (jsonSchema.type === 'integer') delete jsonSchema.pattern;
      // zod leaves the default out when it is of the parsed type (a number) rather than the input's.
      if (zodSchema instanceof z.ZodDefault && jsonSchema.default === undefined) jsonSchema.default = zodSchema.def.defaultValue;
    },
  }) as JsonSchema;
  return rest;
}

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
  if (route.ifMatch) {
    out.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        'Make the change only if the record is still at this version: its `ETag`, `"<version>"` (RFC 9110 conditional request; ' +
        `a list of up to ${MAX_IF_MATCH_TAGS} tags matches any of them, a weak tag \`W/"…"\` never matches, \`*\` matches any version). ` +
        'A stale version answers 412 `precondition_failed`; a malformed header 400 `invalid_header`.',
      schema: { type: 'string', minLength: 1, maxLength: MAX_IF_MATCH_CHARS, pattern: IF_MATCH_PATTERN, example: '"3"' },
    });
  }
  if (route.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'A unique key per intended change, 1 to 255 printable ASCII characters, kept 24 h per API key. A repeat with the same body ' +
        'replays the first answer (with `Idempotent-Replayed: true`) and does nothing again; with another body it is a 422 ' +
        '`idempotency_key_reused`; while the first still runs, a 409 `idempotency_request_in_progress`.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    });
  }
  return out;
}

const securityOf = (route: RouteDef) => scopeAlternatives(route).map((scopes) => ({ bearer: scopes }));

const infoDescription = [
  'The public API of a ticketing workspace. Every call sends `Authorization: Bearer <API_KEY>`; the key identifies the workspace, ' +
    'acts as its own service account (changes are attributed to it, with channel `api`) and sees what its role sees.',
  `Scopes: ${codeList(API_SCOPES)}. Each operation lists the scopes that allow it (any one suffices); \`GET /me\` needs only a valid key. ` +
    'A record the key’s role does not see answers 404, never 403.',
  'Errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`; each answer lists the codes it can carry (its schema, `Problem…`, enumerates them) ' +
    `and \`type\` \`${problemTypeUri('not_found').replace('not-found', '<code>')}\` (underscores as dashes). ` +
    'Unknown paths answer 404; a known path with another method answers 405 `method_not_allowed` with `Allow`. ' +
    `Every code, with its HTTP status: ${REST_CODES.map((c) => `\`${c}\` ${errorTable[c].status}`).join(', ')}.`,
  `Lists use cursor paging: \`?limit=\` (default ${DEFAULT_PAGE_SIZE}, max ${MAX_PAGE_SIZE}) and \`?cursor=\`; the body is \`{data, nextCursor}\` ` +
    'and `Link: <…>; rel="next"` points at the next page. Cursors are opaque and signed: one the list did not issue is a 422 on `query/cursor`.',
  `Input rules: every string follows the text rule (${TEXT_RULE_NOTE.replace(/^Text rule: /, '').replace(/\.$/, '')}; lengths count code points); ` +
    'times are within the years 1 to 9999; integer parameters are plain decimal digits; query parameters an operation does not define, ' +
    'and body members its schema does not define, are refused. Each refusal is a 422 `validation_failed` whose `errors[]` names the member.',
  `Rate limits: \`limits.requestsPerMinute\` of \`GET /me\` per key over a ${WINDOW_SECONDS} s window; every answer to a valid key carries ` +
    '`RateLimit-Policy` and `RateLimit`, and a 429 `rate_limited` carries `Retry-After`.',
  `Bodies are JSON (\`Content-Type: application/json\`), at most ${MAX_BODY_BYTES} bytes. Every answer carries \`X-Request-Id\`.`,
].join('\n\n');

/**
 * Representations shared by several operations and by the webhooks, as components: the success
 * schema of the named route (its items when paged), derived like every other.
 */
const SHARED_REPRESENTATIONS = { Ticket: 'getTicket', Comment: 'addTicketComment' } as const;

let sharedSchemas: { name: string; schema: JsonSchema; text: string }[] | undefined;
function representations() {
  return (sharedSchemas ??= Object.entries(SHARED_REPRESENTATIONS).map(([name, operationId]) => {
    const schema = responseSchema(routes.find((r) => r.operationId === operationId)!);
    return { name, schema, text: JSON.stringify(schema) };
  }));
}

/** Each subschema equal to a shared representation becomes a `$ref` to its component. */
function withComponentRefs(s: JsonSchema): JsonSchema {
  const shared = representations().find((r) => r.text === JSON.stringify(s));
  if (shared) return { $ref: `#/components/schemas/${shared.name}` };
  const walk = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(walk) : v && typeof v === 'object' ? withComponentRefs(v as JsonSchema) : v;
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, walk(v)]));
}

/** The Standard Webhooks headers of every delivery (standardwebhooks.com), as the sender sets them. */
const webhookHeaders = [
  {
    name: 'webhook-id',
    description: 'The event id (`id` of the body): the same on every retry and re-send. Deduplicate on it.',
    schema: { type: 'string', pattern: '^evt_' },
  },
  {
    name: 'webhook-timestamp',
    description: 'When this attempt was sent, in Unix seconds. Refuse deliveries too far from your clock (5 minutes is usual).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    description:
      '`v1,` + base64(HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`)), the key being the base64-decoded part of the ' +
      'secret after `whsec_`. For 24 hours after a rotation two signatures, new first, separated by a space: accept either. ' +
      'The `standardwebhooks` and `svix` libraries verify it unchanged.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})?$' },
  },
  { name: 'User-Agent', description: 'Identifies our sender and its version.', schema: { type: 'string', const: 'Service-Webhooks/1.0' } },
].map((h) => ({ ...h, in: 'header', required: true }));

/** One entry per event type: what we POST to a subscription's URL, generated from the event catalogue. */
function webhooks() {
  const refs = { ticket: '#/components/schemas/Ticket', comment: '#/components/schemas/Comment' };
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `receive${type.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`,
          summary: type,
          description:
            `${eventCatalogue[type].description}\n\nSent as \`POST\` with \`Content-Type: application/json\` to each receiving subscription ` +
            'listening to it. Answer any 2xx within 10 s; anything else is retried (7 attempts over about 35 hours, 410 disables the subscription).',
          tags: ['Events'],
          security: [],
          parameters: webhookHeaders,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: eventBodySchema(type, refs), example: exampleEvent(type) } },
          },
          responses: { '2XX': { description: 'Received; nothing further is sent for this event to this subscription' } },
        },
      },
    ]),
  );
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  Identity: 'Who is calling: the API key, its workspace, its service account and its limits.',
  Boards: 'Boards: their states, priorities and custom fields, as a ticket on them must use them.',
  Users: 'The people of the workspace (and its service accounts).',
  Tickets: 'Tickets on boards and their comments: create, read, list and change them.',
  'Knowledge base': 'Knowledge-base articles: drafts and published ones.',
  Webhooks: 'Webhook subscriptions, their signing secrets, their delivery log and re-sends.',
  Events: 'The events a webhook subscription receives (see `webhooks`), and their catalogue.',
};

/** A route with a tag nobody described fails generation: the linters want every tag described. */
function tagDescription(tag: string): string {
  const description = TAG_DESCRIPTIONS[tag];
  if (!description) throw new Error(`the OpenAPI tag \`${tag}\` has no description: add one to TAG_DESCRIPTIONS in src/api/openapi.ts`);
  return description;
}

/** `serverUrl` is the deployment's PUBLIC_BASE_URL when served; the checked-in file says `/public/v1`, relative to wherever it is served from. */
export function buildOpenApiDocument(serverUrl = '/public/v1') {
  problemComponents = new Map();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      security: securityOf(route),
      parameters: parameters(route),
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: toJsonSchema(route.body) } } } }
        : {}),
      responses: responses(route),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ticketing Service Public API',
      version: '1.0.0',
      description: infoDescription,
      contact: { name: 'The administrators of your workspace, who create its API keys (Settings, Apps, API keys)' },
      // The project grants no licence (package.json: private).
      license: { name: 'Proprietary: no licence granted', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    tags: [...new Set([...routes.map((r) => r.tag), 'Events'])].map((name) => ({ name, description: tagDescription(name) })),
    paths,
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `An API key, \`svc_…\`, created by an administrator under Settings, Apps, API keys. Its scopes: ${codeList(API_SCOPES)}.`,
        },
      },
      headers: responseHeaders,
      schemas: { ...Object.fromEntries(problemComponents), ...Object.fromEntries(representations().map((r) => [r.name, r.schema])) },
    },
  };
}
