// The HTTP application: the REST facade under /public/v1, GraphQL at /graphql, health checks.
// It never listens; src/main.ts serves it, tests call app.fetch().
import { Hono } from 'hono';
import { ulid } from 'ulid';
import { yoga } from '../graphql/yoga.ts';
import { AppError } from '../errors/errors.ts';
import { authenticateRequest, invalidTokenHeaders } from '../auth/authenticate.ts';
import { routes } from '../rest/routes.ts';
import { compileRoute, runRoute } from '../rest/rest-handler.ts';
import { problemResponse } from './problem.ts';
import { buildOpenApiDocument } from '../rest/openapi.ts';
import { config } from '../config.ts';

export const API_PREFIX = '/public/v1';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id');
  return given && REQUEST_ID.test(given) ? given : `req_${ulid()}`;
}

const toHonoPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');

export function createApp() {
  const app = new Hono();
  const compiled = routes.map(compileRoute);
  const methodsByPath = new Map<string, string[]>();

  const openapi = JSON.stringify(buildOpenApiDocument(config.http.publicBaseUrl));
  app.get(`${API_PREFIX}/openapi.json`, () => new Response(openapi, { headers: { 'Content-Type': 'application/json' } }));

  for (const route of compiled) {
    const path = API_PREFIX + toHonoPath(route.def.path);
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), route.def.method]);
    app.on(route.def.method, path, async (c) => {
      const requestId = requestIdOf(c.req.raw);
      try {
        const out = await runRoute(route, {
          request: c.req.raw,
          params: c.req.param() as Record<string, string>,
          query: c.req.query(),
          requestId,
        });
        const headers = { 'X-Request-Id': requestId, ...out.headers };
        if (out.status === 204) return new Response(null, { status: 204, headers });
        return Response.json(out.body, { status: out.status, headers });
      } catch (err) {
        return problemResponse(err, requestId);
      }
    });
  }

  // Known path, other method: 405 with Allow; unknown path: 404. Both as problem+json.
  for (const [path, methods] of methodsByPath) {
    app.all(path, (c) =>
      problemResponse(new AppError('method_not_allowed', `${c.req.method} is not supported here`), requestIdOf(c.req.raw), {
        Allow: methods.join(', '),
      }),
    );
  }
  app.all(`${API_PREFIX}/*`, (c) => problemResponse(new AppError('not_found', 'No such endpoint'), requestIdOf(c.req.raw)));

  app.on(['GET', 'POST', 'OPTIONS'], '/graphql', async (c) => {
    const requestId = requestIdOf(c.req.raw);
    try {
      const auth = await authenticateRequest(c.req.raw.headers, { required: false });
      return yoga.fetch(c.req.raw, { ...auth, requestId });
    } catch (err) {
      if (!(err instanceof AppError)) return problemResponse(err, requestId);
      return Response.json(
        { errors: [{ message: err.message, extensions: { code: err.code, status: err.status } }] },
        { status: err.status, headers: { 'X-Request-Id': requestId, ...(err.code === 'invalid_token' ? invalidTokenHeaders : {}) } },
      );
    }
  });

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.notFound((c) => problemResponse(new AppError('not_found', 'No such page'), requestIdOf(c.req.raw)));
  app.onError((err, c) => problemResponse(err, requestIdOf(c.req.raw)));
  return app;
}
