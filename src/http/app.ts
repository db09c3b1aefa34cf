// The HTTP application: the REST facade under /public/v1, GraphQL at /graphql, health checks.
// It never listens; src/main.ts serves it, tests call app.fetch().
import { randomUUID } from 'node:crypto';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { createGraphQLServer, type GraphQLServer } from '../api/yoga.ts';
import { AppError } from '../errors/errors.ts';
import { authenticateRequest, type BeforeLookup, type RequestAuth } from '../api/authenticate.ts';
import { routes as apiRoutes } from '../api/routes.ts';
import type { RouteDef } from '../rest/route.ts';
import type { Principal } from '../access/principal.ts';
import { compileRoute, runRoute } from '../api/rest-handler.ts';
import { pageMemory } from '../paging/page-budget.ts';
import { problemResponse } from '../errors/problem.ts';
import { settingsUi } from './settings-ui.ts';
import { createGraphQLEndpoint } from './graphql-endpoint.ts';
import { buildOpenApiDocument } from '../api/openapi.ts';
import { createApiReference } from '../api/api-reference.ts';
import { config } from '../config.ts';
import { createRequestRateLimiter, type RequestRateLimiter } from '../rate-limit/request-rate-limiter.ts';
import { sharedRedis } from '../rate-limit/redis.ts';
import { createAddressRateLimiter, type AddressRateLimiter } from '../rate-limit/address-rate-limiter.ts';
import { clientAddressResolver } from '../rate-limit/client-address.ts';
import { addressLane, moveToDatabaseLane, withDatabaseLane, workspaceLane } from '../db/fair-turns.ts';
import { healthRoutes, type ReadinessChecks } from './health.ts';
import { databaseAnswers, migrationsApplied } from '../db/db.ts';
import { httpMetrics } from '../metrics/http-metrics.ts';
import { metricsOnPublicPort, metricsRoutes } from './metrics-endpoint.ts';
import { traceRequests } from '../tracing/http.ts';
import { tracing } from '../tracing/tracing.ts';

const API_PREFIX = '/public/v1';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A random UUID comes from a buffered pool; a ULID drew 16 random values per new millisecond, i.e. per request. */
function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id');
  return given && REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
}

/** The paths Hono's `/public/v1/*` and `/graphql` match. */
const isApiPath = (path: string) => path === '/graphql' || path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);

const toHonoPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');

interface AppOptions {
  /** The /public/v1 route table (tests add routes of their own). */
  routes?: RouteDef[];
  /** Per-key request limits; in process, or in Redis when REDIS_URL is set. */
  rateLimiter?: RequestRateLimiter;
  /** Limits of requests without valid credentials, per client address; the same stores. */
  anonymousRateLimiter?: AddressRateLimiter;
  /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES). */
  trustedProxies?: readonly string[];
  /** What /readyz checks (src/main.ts adds Temporal or the worker to the database's two). */
  readiness?: ReadinessChecks;
  /** The GraphQL server (tests build one as production runs it). */
  graphql?: GraphQLServer;
  /** Whether /metrics is served here (see metrics-endpoint.ts). */
  metrics?: boolean;
}

export function createApp({
  routes = apiRoutes,
  rateLimiter = createRequestRateLimiter({ redis: sharedRedis() }),
  anonymousRateLimiter = createAddressRateLimiter({ requestsPerMinute: config.auth.anonymousRequestsPerMinute, redis: sharedRedis() }),
  trustedProxies = config.auth.trustedProxies,
  readiness = { database: databaseAnswers, migrations: migrationsApplied },
  graphql = createGraphQLServer(),
  metrics = metricsOnPublicPort(),
}: AppOptions = {}) {
  const app = new Hono();
  const compiled = routes.map(compileRoute);
  const methodsByPath = new Map<string, string[]>();
  // Resolved once per request (proxy-addr and ipaddr.js parse on every call).
  const resolveClientAddress = clientAddressResolver(trustedProxies);
  const addresses = new WeakMap<Request, string>();
  const clientAddressOf = (c: Context) => {
    let address = addresses.get(c.req.raw);
    if (address === undefined) addresses.set(c.req.raw, (address = resolveClientAddress(c)));
    return address;
  };
  // One middleware, first, for what every request gets: it is timed and counted (metrics, seeing
  // which route answered); an API request (not health checks or the settings UI) also gets its
  // trace span, covering its limits too, and its database lane. Each caller's statements take
  // their turns in a lane of their own (src/db/fair-turns.ts, at PGlite's connection and
  // PostgreSQL's pool): its client address's until `admit` knows its workspace, from then on the
  // workspace's. A credential never names a lane: a stranger sending a thousand made-up keys is
  // one lane, its address's, not a thousand that outweigh every workspace. One middleware rather
  // than three: each level of Hono's middleware chain costs every request a dispatch and its
  // promises.
  const measured = httpMetrics();
  const apiRequest: MiddlewareHandler = (c, next) => withDatabaseLane(addressLane(clientAddressOf(c)), () => (tracing() ? traceRequests(c, next) : next()));
  const requestScope: MiddlewareHandler = (c, next) => measured(c, isApiPath(c.req.path) ? () => apiRequest(c, next) as Promise<void> : next);
  app.use('*', requestScope);

  /**
   * Authenticates, then counts the request: against its key, or, when it has no valid key or
   * session (a refused one included), against the client address, once. A credential never
   * resolved here is counted against the address before the database is asked (`beforeLookup`),
   * so made-up keys are refused for their address's allowance, not looked up one query each; a
   * valid key's first request in a process costs its address one, its refreshes nothing.
   * Returns the key's limit headers; the principal carries the request's address (audit log).
   */
  async function admit(c: Context, authenticate: (beforeLookup: BeforeLookup) => Promise<RequestAuth>): Promise<{ auth: RequestAuth; limitHeaders: Record<string, string> }> {
    const address = clientAddressOf(c);
    let counted = false;
    const countAddress = async () => {
      if (counted) return;
      counted = true;
      await anonymousRateLimiter.admit(address);
    };
    let auth: RequestAuth;
    try {
      auth = await authenticate(countAddress);
    } catch (err) {
      await countAddress();
      throw err;
    }
    if (auth.principal) {
      // The request's statements from here on take its workspace's turns.
      moveToDatabaseLane(workspaceLane(auth.principal.workspace.id));
      const principal = { ...auth.principal, address };
      return { auth: { ...auth, principal }, limitHeaders: await rateLimiter.admit(principal) };
    }
    await countAddress();
    return { auth, limitHeaders: {} };
  }

  /** Paths that take no credentials count every request against the client address. */
  const anonymousLimit: MiddlewareHandler = async (c, next) => {
    try {
      await anonymousRateLimiter.admit(clientAddressOf(c));
    } catch (err) {
      return problemResponse(err, requestIdOf(c.req.raw));
    }
    await next();
  };

  /** The key's limit headers go on every answer to a keyed request, errors included. */
  async function restAnswer(c: Context, required: boolean, answer: (auth: RequestAuth, headers: Record<string, string>) => Promise<Response> | Response) {
    const requestId = requestIdOf(c.req.raw);
    let limitHeaders: Record<string, string> = {};
    try {
      const admitted = await admit(c, (beforeLookup) => authenticateRequest(c.req.raw.headers, { required, beforeLookup }));
      limitHeaders = admitted.limitHeaders;
      return await answer(admitted.auth, { 'X-Request-Id': requestId, ...limitHeaders });
    } catch (err) {
      return problemResponse(err, requestId, limitHeaders);
    }
  }

  app.use(`${API_PREFIX}/openapi.json`, anonymousLimit);
  // Hono's `/docs/*` also matches `/docs` itself: the page and its script, each counted once.
  app.use(`${API_PREFIX}/docs/*`, anonymousLimit);
  app.use('/settings/*', anonymousLimit);
  const document = buildOpenApiDocument(config.http.publicBaseUrl);
  const openapi = JSON.stringify(document);
  app.get(`${API_PREFIX}/openapi.json`, () => new Response(openapi, { headers: { 'Content-Type': 'application/json' } }));
  // The readable reference (Scalar), public like the document, and its script from our own server.
  const reference = createApiReference(openapi, `${document.info.title} ${document.info.version}: reference`, `${API_PREFIX}/docs/assets/scalar.js`);
  app.get(`${API_PREFIX}/docs`, () => reference.page());
  app.get(`${API_PREFIX}/docs/assets/scalar.js`, (c) => reference.asset(c.req.raw));

  // A path without parameters that a parameter route also matches (`/tickets/bulk` beside
  // `/tickets/{id}`): Hono runs handlers in registration order, so its other methods answer 405
  // here, before the parameter route would take them as an id.
  const paramPaths = routes.filter((r) => r.path.includes('{')).map((r) => new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`));
  for (const path of new Set(routes.map((r) => r.path).filter((p) => !p.includes('{') && paramPaths.some((re) => re.test(p))))) {
    const methods = routes.filter((r) => r.path === path).map((r) => r.method);
    app.all(API_PREFIX + path, async (c, next) => {
      if (methods.includes(c.req.method as RouteDef['method'])) return next();
      return restAnswer(c, false, (_auth, headers) =>
        problemResponse(new AppError('method_not_allowed', `${c.req.method} is not supported here`), headers['X-Request-Id'], { ...headers, Allow: methods.join(', ') }),
      );
    });
  }

  // Made here, not in the route's handler: the GraphQL context holds it, and Pothos' per-request
  // caches (WeakMaps keyed by the context, whose values point back at it) keep the context alive
  // through every young-generation collection until the next full one. A closure in the handler
  // would hold the whole request with it (Hono's context, the Node request and response): GET /me
  // promoted ~12 KB per request to the old generation that way, and its scavenges took 10-20 ms.
  const chargeTo = (principal: Principal | null) => async (extra: number) => {
    if (principal) await rateLimiter.admit(principal, extra);
  };

  for (const route of compiled) {
    const path = API_PREFIX + toHonoPath(route.def.path);
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), route.def.method]);
    // Page memory (paging/page-budget.ts) is held until the answer's JSON is made.
    app.on(route.def.method, path, (c) =>
      pageMemory.run((pageHold) => restAnswer(c, true, async (auth, baseHeaders) => {
        const out = await runRoute(route, {
          request: c.req.raw,
          params: c.req.param(),
          query: c.req.query(),
          requestId: baseHeaders['X-Request-Id'],
          auth,
          pageHold,
          chargeRequests: chargeTo(auth.principal),
        });
        const headers = { ...baseHeaders, ...out.headers };
        if (out.status === 204) return new Response(null, { status: 204, headers });
        // A string body and a plain header object: @hono/node-server writes both straight to the
        // socket, where Response.json() with headers built a fetch Headers object per answer. A
        // replayed refusal brings its own Content-Type (problem+json), which wins.
        return new Response(JSON.stringify(out.body), { status: out.status, headers: { 'Content-Type': 'application/json', ...headers } });
      })),
    );
  }

  // Known path, other method: 405 with Allow; unknown path: 404. Both as problem+json.
  // A key sent with them is checked and counted like any other call.
  for (const [path, methods] of methodsByPath) {
    app.all(path, (c) =>
      restAnswer(c, false, (_auth, headers) =>
        problemResponse(new AppError('method_not_allowed', `${c.req.method} is not supported here`), headers['X-Request-Id'], {
          ...headers,
          Allow: methods.join(', '),
        }),
      ),
    );
  }
  app.all(`${API_PREFIX}/*`, (c) =>
    restAnswer(c, false, (_auth, headers) => problemResponse(new AppError('not_found', 'No such endpoint'), headers['X-Request-Id'], headers)),
  );

  const graphqlEndpoint = createGraphQLEndpoint({ yoga: graphql });
  app.on(['GET', 'POST', 'OPTIONS'], '/graphql', (c) =>
    graphqlEndpoint(c.req.raw, {
      requestId: requestIdOf(c.req.raw),
      clientAddress: clientAddressOf(c),
      admit: (authenticate) => admit(c, authenticate),
      // Each further mutation field of a document counts as one more request of its caller.
      charge: async (principal, extra) => {
        if (principal) await rateLimiter.admit(principal, extra);
        else for (let i = 0; i < extra; i++) await anonymousRateLimiter.admit(clientAddressOf(c));
      },
    }),
  );

  // Not limited: cheaper to answer than to count, and orchestrators poll them.
  app.route('/', healthRoutes(readiness));
  // Not limited either: served here outside production, or with its token (a wrong one is refused at once).
  if (metrics) app.route('/', metricsRoutes());
  // The settings UI for people (web/); it uses /graphql with the session cookie.
  app.route('/settings', settingsUi());
  app.notFound(async (c) => {
    const requestId = requestIdOf(c.req.raw);
    try {
      await anonymousRateLimiter.admit(clientAddressOf(c));
    } catch (err) {
      return problemResponse(err, requestId);
    }
    return problemResponse(new AppError('not_found', 'No such page'), requestId);
  });
  app.onError((err, c) => problemResponse(err, requestIdOf(c.req.raw)));
  return app;
}
