// Counts and times every answer of the HTTP app by the route template that answered it.
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { httpRequestDuration, httpRequests } from './metrics.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Mounted first, on `*`: after the rest has run, the route index points at the handler that
 * answered, and its registered path is the template (`/public/v1/tickets/:id`). When only this
 * middleware matched, nothing did (the app's notFound answered): those share one label.
 */
export function httpMetrics(): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const template = c.req.routeIndex === 0 ? '' : routePath(c);
    const route = template === '' || template === '*' || template === '/*' ? 'unmatched' : template;
    const method = METHODS.has(c.req.method) ? c.req.method : 'other';
    httpRequests.inc({ route, method, status: String(c.res.status) });
    httpRequestDuration.observe({ route, method }, (performance.now() - started) / 1000);
  };
}
