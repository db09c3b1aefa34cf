// Generates the OpenAPI 3.1 document from the route table and the GraphQL schema: response
// schemas are derived from each route's selection set, request schemas from its zod inputs, and
// the scopes of each operation from its GraphQL field's authScopes (the rule that enforces them).
// The parts: openapi-schemas.ts (JSON Schemas), openapi-parameters.ts, openapi-responses.ts and
// openapi-problems.ts (answers and error codes), openapi-webhooks.ts (the webhooks section).
import { errorTable, problemTypeUri } from '../errors/errors.ts';
import { API_SCOPES } from '../access/principal.ts';
import { MAX_BODY_BYTES } from '../validation/request-body.ts';
import { WINDOW_SECONDS } from '../rate-limit/request-rate-limiter.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../paging/paging.ts';
import { TEXT_RULE_NOTE } from '../validation/text.ts';
import { routes } from './routes.ts';
import type { RouteDef } from '../rest/route.ts';
import { namedSchemas, representations, scopeAlternatives, toJsonSchema, type JsonSchema } from './openapi-schemas.ts';
import { codeList, REST_CODES } from './openapi-problems.ts';
import { responseHeaders, responses } from './openapi-responses.ts';
import { parameters } from './openapi-parameters.ts';
import { webhooks } from './openapi-webhooks.ts';

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

const TAG_DESCRIPTIONS: Record<string, string> = {
  Identity: 'Who is calling: the API key, its workspace, its service account and its limits.',
  Boards: 'Boards: their states, priorities and custom fields, as a ticket on them must use them.',
  Users: 'The people of the workspace (and its service accounts).',
  Tickets: 'Tickets on boards and their comments: create, read, list and change them.',
  'Knowledge base': 'Knowledge-base articles: drafts and published ones.',
  Webhooks: 'Webhook subscriptions, their signing secrets, their delivery log and re-sends.',
  Events: 'The events a webhook subscription receives (see `webhooks`), and their catalogue.',
  'Audit log': 'Who did which administrative action, when, from where, and what it changed (administrators).',
};

/** A route with a tag nobody described fails generation: the linters want every tag described. */
function tagDescription(tag: string): string {
  const description = TAG_DESCRIPTIONS[tag];
  if (!description) throw new Error(`the OpenAPI tag \`${tag}\` has no description: add one to TAG_DESCRIPTIONS in src/api/openapi.ts`);
  return description;
}

/** `serverUrl` is the deployment's PUBLIC_BASE_URL when served; the checked-in file says `/public/v1`, relative to wherever it is served from. */
export function buildOpenApiDocument(serverUrl = '/public/v1') {
  const problemComponents = new Map<string, JsonSchema>();
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
      responses: responses(route, problemComponents),
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
      schemas: { ...Object.fromEntries(problemComponents), ...Object.fromEntries(representations().map((r) => [r.name, r.schema])), ...namedSchemas() },
    },
  };
}
