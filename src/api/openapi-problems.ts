// The problems of the OpenAPI document: which error codes each answer of a route can carry, and
// the problem-details schema narrowed to them.
import { errorTable, type ErrorCode } from '../errors/errors.ts';
import type { RouteDef } from '../rest/route.ts';
import { isMutation, type JsonSchema } from './openapi-schemas.ts';

export const codeList = (codes: readonly string[]) => codes.map((c) => `\`${c}\``).join(', ');

/** Codes only GraphQL callers meet (sign-in, sessions, malformed GraphQL); never on /public/v1. */
const GRAPHQL_ONLY_CODES: ErrorCode[] = ['unauthenticated', 'csrf_failed', 'invalid_request', 'query_too_complex', 'too_many_mutations'];
/** Answered for a path, not by an operation: a known path with another method (documented in `info`). */
const PATH_LEVEL_CODES: ErrorCode[] = ['method_not_allowed'];
const IDEMPOTENCY_CODES: ErrorCode[] = ['idempotency_request_in_progress', 'idempotency_key_reused'];
/** A query changes nothing, so it never meets a role's write permission or a state rule. */
const CHANGE_ONLY_CODES: ErrorCode[] = ['forbidden', 'subscription_limit_reached', 'invalid_state_transition'];
/** Codes of one domain's rules: only on the routes that name them in `codes`. */
const DOMAIN_CODES: ErrorCode[] = ['subscription_limit_reached', 'invalid_state_transition', 'precondition_failed', 'held_delivery_limit_reached', 'last_administrator', 'recovery_in_progress', 'api_key_limit_reached'];
/** No route answers these today; listing them would promise answers that never come. */
const UNUSED_CODES: ErrorCode[] = ['conflict'];

export const REST_CODES = (Object.keys(errorTable) as ErrorCode[]).filter((c) => !GRAPHQL_ONLY_CODES.includes(c));

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

/** Codes a status can carry on this route. */
export function codesFor(route: RouteDef, status: number | '5XX'): ErrorCode[] {
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

/**
 * The problem details whose `code` is one of these, as a component named after them
 * (`ProblemInvalidToken`) in `components`, the problem schemas of the document being built (one
 * per set of codes an answer can carry): a plain `enum` in a whole schema, since client
 * generators merge an `allOf` that narrows a shared schema badly.
 */
export function problemWith(codes: ErrorCode[], components: Map<string, JsonSchema>): JsonSchema {
  const name = `Problem${codes.map((c) => c.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('')).join('Or')}`;
  if (!components.has(name)) {
    const properties = problemSchema.properties as Record<string, JsonSchema>;
    const code = { type: 'string', description: `${codes.length > 1 ? 'One of the codes' : 'The code'} of this answer`, enum: codes };
    components.set(name, { ...problemSchema, properties: { ...properties, code } });
  }
  return { $ref: `#/components/schemas/${name}` };
}
