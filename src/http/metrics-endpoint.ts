// GET /metrics in Prometheus' text format. Where it is served (docs/operators/observability.md): on PORT,
// except in production without METRICS_TOKEN (the public port is for strangers too); on
// METRICS_PORT alone when that is set; on the worker role's HEALTH_PORT. With METRICS_TOKEN set it
// answers only `Authorization: Bearer <token>`, wherever it is served.
import crypto, { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { AppError } from '../errors/errors.ts';
import { problemResponse } from '../errors/problem.ts';
import { config, type Config } from '../config.ts';
import { registry } from '../metrics/metrics.ts';
import { registerWebhookGauges } from '../webhooks/log/webhook-gauges.ts';
import { registerReadinessGauge } from './readiness-gauge.ts';

registerWebhookGauges(registry);
registerReadinessGauge(registry);

const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

export function metricsRoutes(token = config.metrics.token): Hono {
  const app = new Hono();
  const expected = token === undefined ? undefined : digest(`Bearer ${token}`);
  app.get('/metrics', async (c) => {
    // Compared as digests: equal lengths for timingSafeEqual, and nothing learnt from timing.
    if (expected && !crypto.timingSafeEqual(digest(c.req.header('Authorization') ?? ''), expected)) {
      return problemResponse(new AppError('invalid_token', 'The metrics token is missing or wrong'), `req_${randomUUID()}`);
    }
    return new Response(await registry.metrics(), { headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' } });
  });
  return app;
}

/** Whether the API's public port serves /metrics. */
export function metricsOnPublicPort({ metrics, isProduction }: Pick<Config, 'metrics' | 'isProduction'> = config): boolean {
  return metrics.port === undefined && (!isProduction || metrics.token !== undefined);
}
