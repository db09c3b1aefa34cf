// The HTTP application: the REST facade under /public/v1, GraphQL at /graphql, health checks.
// It never listens; src/main.ts serves it, tests call app.fetch().
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { createGraphQLServer, type GraphQLServer } from '../graphql/yoga.ts';
import { AppError } from '../errors/errors.ts';
import { authenticateRequest, type RequestAuth } from '../auth/authenticate.ts';
import { routes as apiRoutes } from '../rest/routes.ts';
import type { RouteDef } from '../rest/route.ts';
import { compileRoute, runRoute } from '../rest/rest-handler.ts';
import { problemResponse } from './problem.ts';
import { settingsUi } from './settings-ui.ts';
import { createGraphQLEndpoint } from './graphql-endpoint.ts';
import { buildOpenApiDocument } from '../rest/openapi.ts';
import { renderReferencePage } from '../rest/reference-page.ts';
import { config } from '../config.ts';
import { createRequestRateLimiter, type RequestRateLimiter } from '../rate-limit/request-rate-limiter.ts';
import { sharedRedis } from '../rate-limit/redis.ts';

export const API_PREFIX = '/public/v1';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A random UUID comes from a buffered pool; a ULID drew 16 random values per new millisecond, i.e. per request. */
function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id');
  return given && REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
}

const toHonoPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');

export interface AppOptions {
  /** The /public/v1 route table (tests add routes of their own). */
  routes?: RouteDef[];
  /** Per-key request limits; in process, or in Redis when REDIS_URL is set. */
  rateLimiter?: RequestRateLimiter;
  /** The GraphQL server (tests build one as production runs it). */
  graphql?: GraphQLServer;
}

export function createApp({
  routes = apiRoutes,
  rateLimiter = createRequestRateLimiter({ redis: sharedRedis() }),
  graphql = createGraphQLServer(),
}: AppOptions = {}) {
  const app = new Hono();
  const compiled = routes.map(compileRoute);
  const methodsByPath = new Map<string, string[]>();

  /** The key's limit headers go on every answer to a keyed request, errors included. */
  async function restAnswer(request: Request, required: boolean, answer: (auth: RequestAuth, headers: Record<string, string>) => Promise<Response> | Response) {
    const requestId = requestIdOf(request);
    let limitHeaders: Record<string, string> = {};
    try {
      const auth = await authenticateRequest(request.headers, { required });
      limitHeaders = await rateLimiter.admit(auth.principal);
      return await answer(auth, { 'X-Request-Id': requestId, ...limitHeaders });
    } catch (err) {
      return problemResponse(err, requestId, limitHeaders);
    }
  }

  const document = buildOpenApiDocument(config.http.publicBaseUrl);
  const openapi = JSON.stringify(document);
  app.get(`${API_PREFIX}/openapi.json`, () => new Response(openapi, { headers: { 'Content-Type': 'application/json' } }));
  // The readable reference, public like the document; the page is inert (no script, nothing fetched).
  const referencePage = renderReferencePage(document);
  app.get(`${API_PREFIX}/docs`, () =>
    new Response(referencePage, {
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      },
    }),
  );

  for (const route of compiled) {
    const path = API_PREFIX + toHonoPath(route.def.path);
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), route.def.method]);
    app.on(route.def.method, path, (c) =>
      restAnswer(c.req.raw, true, async (auth, baseHeaders) => {
        const out = await runRoute(route, {
          request: c.req.raw,
          params: c.req.param() as Record<string, string>,
          query: c.req.query(),
          requestId: baseHeaders['X-Request-Id'],
          auth,
        });
        const headers = { ...baseHeaders, ...out.headers };
        if (out.status === 204) return new Response(null, { status: 204, headers });
        // A string body and a plain header object: @hono/node-server writes both straight to the
        // socket, where Response.json() with headers built a fetch Headers object per answer. A
        // replayed refusal brings its own Content-Type (problem+json), which wins.
        return new Response(JSON.stringify(out.body), { status: out.status, headers: { 'Content-Type': 'application/json', ...headers } });
      }),
    );
  }

  // Known path, other method: 405 with Allow; unknown path: 404. Both as problem+json.
  // A key sent with them is checked and counted like any other call.
  for (const [path, methods] of methodsByPath) {
    app.all(path, (c) =>
      restAnswer(c.req.raw, false, (_auth, headers) =>
        problemResponse(new AppError('method_not_allowed', `${c.req.method} is not supported here`), headers['X-Request-Id'], {
          ...headers,
          Allow: methods.join(', '),
        }),
      ),
    );
  }
  app.all(`${API_PREFIX}/*`, (c) =>
    restAnswer(c.req.raw, false, (_auth, headers) => problemResponse(new AppError('not_found', 'No such endpoint'), headers['X-Request-Id'], headers)),
  );

  const graphqlEndpoint = createGraphQLEndpoint({ yoga: graphql, rateLimiter });
  app.on(['GET', 'POST', 'OPTIONS'], '/graphql', (c) => graphqlEndpoint(c.req.raw, requestIdOf(c.req.raw)));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  // The settings UI for people (web/); it uses /graphql with the session cookie.
  app.route('/settings', settingsUi());
  app.notFound((c) => problemResponse(new AppError('not_found', 'No such page'), requestIdOf(c.req.raw)));
  app.onError((err, c) => problemResponse(err, requestIdOf(c.req.raw)));
  return app;
}
