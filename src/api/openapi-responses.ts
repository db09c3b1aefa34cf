// The answers of each operation of the OpenAPI document: the success, then each problem the route
// can meet, with the response headers they carry.
import { errorTable } from '../errors/errors.ts';
import { MAX_BODY_BYTES } from '../validation/request-body.ts';
import { WINDOW_SECONDS } from '../rate-limit/request-rate-limiter.ts';
import type { RouteDef } from '../rest/route.ts';
import { isMutation, responseSchema, scopeAlternatives, withComponentRefs, type JsonSchema } from './openapi-schemas.ts';
import { codeList, codesFor, problemWith } from './openapi-problems.ts';

const needsScope = (route: RouteDef) => scopeAlternatives(route).some((a) => a.length > 0);

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

type HeaderName = 'X-Request-Id' | 'RateLimit-Policy' | 'RateLimit' | 'Retry-After' | 'Idempotent-Replayed' | 'Link' | 'WWW-Authenticate' | 'ETag';

export const responseHeaders: Record<HeaderName, JsonSchema> = {
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

function problem(route: RouteDef, problems: Map<string, JsonSchema>, status: number | '5XX', description: string, headers: HeaderName[] = []) {
  const codes = codesFor(route, status);
  if (!codes.length) throw new Error(`route ${route.operationId}: no error code answers ${status}`);
  return {
    description: `${description}. \`code\`: ${codeList(codes)}.`,
    headers: headersOf(headers),
    content: {
      'application/problem+json': {
        schema: problemWith(codes, problems),
      },
    },
  };
}

/** Every answer an operation can give: the success, then each problem the route can meet. */
export function responses(route: RouteDef, problems: Map<string, JsonSchema>) {
  const status = route.status ?? 200;
  const replayed: HeaderName[] = route.idempotent ? ['Idempotent-Replayed'] : [];
  const success =
    status === 204
      ? { description: 'Done', headers: headersOf(replayed) }
      : {
          description: route.paged ? 'One page' : 'Success',
          headers: headersOf([...replayed, ...(route.paged ? (['Link'] as const) : []), ...(route.etag ? (['ETag'] as const) : [])]),
          content: { 'application/json': { schema: withComponentRefs(responseSchema(route)), ...(route.example === undefined ? {} : { example: route.example }) } },
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
    out['400'] = problem(route, problems, 400, why[0].toUpperCase() + why.slice(1));
  }
  out['401'] = problem(route, problems, 401, 'The API key is missing, unknown, revoked or expired', ['WWW-Authenticate']);
  if (needsScope(route) || mutation) {
    out['403'] = problem(route, problems, 403, mutation ? 'The key lacks the scope, or its role may not make this change' : 'The key lacks the scope', ['WWW-Authenticate']);
  }
  if (route.params) out['404'] = problem(route, problems, 404, 'No such record, or one the key’s role does not see (never 403)', replayed);
  if (route.idempotent) out['409'] = problem(route, problems, 409, 'The first request with this `Idempotency-Key` is still running; retry later');
  if (route.ifMatch) out['412'] = problem(route, problems, 412, 'The record is no longer at a version `If-Match` names; nothing changed');
  if (route.body) {
    out['413'] = problem(route, problems, 413, `The body is over ${MAX_BODY_BYTES} bytes (1 MiB)`);
    out['415'] = problem(route, problems, 415, 'The body is not sent as `application/json`');
  }
  if (route.query || route.body || route.codes?.some((c) => errorTable[c].status === 422)) {
    out['422'] = problem(route, problems, 422, 'Validation failed; `errors[]` names each offending member', replayed);
  }
  out['429'] = problem(route, problems, 429, 'Over the key’s request quota; retry after `Retry-After` seconds', ['Retry-After']);
  out['5XX'] = problem(route, problems, '5XX', 'A failure on our side; never a stack trace. Retry later');
  return out;
}
