// The one place that reads process.env. Every variable is in the README's configuration table (test/docs/links.test.ts checks).
// Parsed once, on first use: nothing reads it when a module is imported, so a test can hand in its
// own environment with loadConfig(env) before starting the service.
import { z } from 'zod';
import dns from 'node:dns';
import path from 'node:path';
import proxyaddr from 'proxy-addr';
import { onFirstUse } from './lazy.ts';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A comma-separated list (items trimmed, empty ones dropped) that `check` accepts (it throws otherwise); unset: empty. */
const commaList = (check: (list: string[]) => unknown, message: string) =>
  z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .refine((list) => {
      try {
        check(list);
        return true;
      } catch {
        return false;
      }
    }, message);

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_TOKEN: z.string().min(16).optional(),
  PUBLIC_BASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('.data'),
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_PREPARED_STATEMENTS: bool.default(true),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('webhook-deliveries'),
  TEMPORAL_PORT: z.coerce.number().int().default(7233),
  TEMPORAL_UI_PORT: z.coerce.number().int().default(8233),
  TEMPORAL_UI_URL: z.string().url().optional(),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  TEMPORAL_TEST_SERVER_PATH: z.string().min(1).optional(),
  TEMPORAL_METRICS_ADDRESS: z.string().regex(/^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, 'host:port').optional(),
  REDIS_URL: z.string().min(1).optional(),
  DEFAULT_REQUESTS_PER_MINUTE: z.coerce.number().int().positive().default(600),
  DEFAULT_MAX_WEBHOOK_SUBSCRIPTIONS: z.coerce.number().int().positive().default(10),
  // Tenant limits (docs/integrators/api-conventions.md, "Tenant limits"): live subscriptions of a workspace, whoever saves them; held deliveries of a subscription.
  MAX_WEBHOOK_SUBSCRIPTIONS_PER_WORKSPACE: z.coerce.number().int().positive().max(100_000).default(50),
  MAX_HELD_DELIVERIES_PER_SUBSCRIPTION: z.coerce.number().int().positive().max(1_000_000).default(100),
  // Usable (not revoked, not expired) API keys of a workspace: each has its own request allowance, so this bounds the workspace's.
  MAX_API_KEYS_PER_WORKSPACE: z.coerce.number().int().positive().max(10_000).default(50),
  SESSION_REQUESTS_PER_MINUTE: z.coerce.number().int().positive().default(600),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
  // The DNS servers that resolve webhook hosts (src/webhooks/message/host-resolver.ts): `ip`, `ip:port` or
  // `[ipv6]:port`, comma-separated; unset or empty: the system's (/etc/resolv.conf).
  WEBHOOK_DNS_SERVERS: commaList((list) => new dns.Resolver().setServers(list), 'a comma-separated list of IP addresses, each with an optional port (1.1.1.1, 127.0.0.1:5353, [::1]:53)'),
  // Keys that encrypt webhook signing secrets at rest (docs/operators/admin-cli.md, "Webhook secrets"); unset: a key
  // file in DATA_DIR. `id:base64`, comma-separated, the first encrypts.
  WEBHOOK_SECRET_KEYS: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()).transform((v, ctx) => {
    if (v === undefined) return undefined;
    const keys = parseSecretKeys(v);
    if (typeof keys === 'string') {
      ctx.addIssue({ code: 'custom', message: keys });
      return z.NEVER;
    }
    return keys;
  }),
  // The most attempts in flight any one subscription may ask for (docs/integrators/webhooks.md, "Bounds").
  WEBHOOK_MAX_IN_FLIGHT_LIMIT: z.coerce.number().int().min(1).max(1000).default(50),
  WEBHOOK_WORKSPACE_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(100),
  // A worker process's connections to receivers at most, busy and idle (src/webhooks/message/delivery-agent.ts): half of
  // the common soft limit of 1024 descriptors, the rest left to the API's clients, the database and Temporal.
  WEBHOOK_MAX_CONNECTIONS: z.coerce.number().int().min(16).max(1_000_000).default(512),
  // The slowest rate a subscription may ask for (docs/integrators/webhooks.md, "Bounds"): at 0.1/s a paused
  // subscription's held cap (100) drains in under 17 minutes, within its deliveries' first retries.
  WEBHOOK_MIN_RATE_PER_SECOND: z.coerce.number().min(0.01).max(1000).default(0.1),
  // The shortest retry delay a subscription's retry schedule may ask for (docs/integrators/webhooks.md,
  // "Retry schedules"): a receiver that is down is not hammered.
  WEBHOOK_RETRY_MIN_DELAY_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  // Retention (docs/operators/retention-and-backups.md).
  WEBHOOK_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  READ_NOTIFICATION_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(100).max(100_000).default(5000),
  AUDIT_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
  // Hostile-input limits of authentication (docs/integrators/api-conventions.md, "Rate limits" and "People and sessions").
  TRUSTED_PROXIES: commaList((list) => proxyaddr.compile(list), 'a comma-separated list of IP addresses, CIDR ranges, or loopback / linklocal / uniquelocal'),
  ANONYMOUS_REQUESTS_PER_MINUTE: z.coerce.number().int().positive().default(300),
  SIGN_IN_MAX_CONSECUTIVE_FAILURES: z.coerce.number().int().positive().default(10),
  SIGN_IN_MAX_FAILURES_PER_ADDRESS_PER_DAY: z.coerce.number().int().positive().default(100),
  SMTP_URL: z.string().min(1).optional(),
  SMTP_FROM: z.string().default('Ticketing <no-reply@localhost>'),
  SEED_DEMO: bool.default(true),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  // Traces (docs/operators/observability.md, "Traces"): off unless an OTLP/HTTP endpoint is given; empty means unset.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().regex(/^https?:/i, 'an http(s) URL').optional()),
  OTEL_SERVICE_NAME: z.string().min(1).default('ticketing'),
});

/** A key that encrypts webhook signing secrets (AES-256-GCM); its id is stored with each ciphertext. */
export interface SecretKey {
  id: string;
  key: Buffer;
}

/** `id:base64[,id:base64…]` (commas or line breaks), each key 32 bytes: the keys, or what is wrong. */
export function parseSecretKeys(text: string): SecretKey[] | string {
  const keys: SecretKey[] = [];
  for (const item of text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean)) {
    const [id, value, extra] = item.split(':');
    if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || value === undefined || extra !== undefined) return 'a comma-separated list of id:base64 (id: letters, digits, - and _, at most 32)';
    const key = Buffer.from(value, 'base64');
    if (key.length !== 32) return `key ${id} must be 32 bytes in base64 (openssl rand -base64 32)`;
    if (keys.some((k) => k.id === id)) return `key id ${id} appears twice`;
    keys.push({ id, key });
  }
  return keys.length ? keys : 'at least one id:base64 key';
}

export type Config = ReturnType<typeof parseConfig>;

export function parseConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    env: e.NODE_ENV,
    isProduction: e.NODE_ENV === 'production',
    http: {
      port: e.PORT,
      host: e.HOST,
      publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}/public/v1`,
      /** The worker role's /healthz and /readyz listener (the API serves them on PORT). */
      healthPort: e.HEALTH_PORT,
    },
    metrics: {
      /** Serve /metrics on this port alone (on HOST) instead of on PORT. */
      port: e.METRICS_PORT,
      /** When set, /metrics answers only `Authorization: Bearer <token>`. */
      token: e.METRICS_TOKEN,
    },
    dataDir,
    database: e.DATABASE_URL
      ? ({ kind: 'postgres', url: e.DATABASE_URL, preparedStatements: e.DATABASE_PREPARED_STATEMENTS } as const)
      : ({ kind: 'pglite', dir: path.join(dataDir, 'pglite') } as const),
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      devServerPort: e.TEMPORAL_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: e.TEMPORAL_UI_URL,
      cliPath: e.TEMPORAL_CLI_PATH,
      testServerPath: e.TEMPORAL_TEST_SERVER_PATH,
      /** The SDK's own Prometheus exporter for worker metrics (`host:port`); off when unset. */
      metricsAddress: e.TEMPORAL_METRICS_ADDRESS,
    },
    redisUrl: e.REDIS_URL,
    limits: {
      requestsPerMinute: e.DEFAULT_REQUESTS_PER_MINUTE,
      maxWebhookSubscriptions: e.DEFAULT_MAX_WEBHOOK_SUBSCRIPTIONS,
      maxWebhookSubscriptionsPerWorkspace: e.MAX_WEBHOOK_SUBSCRIPTIONS_PER_WORKSPACE,
      maxHeldDeliveriesPerSubscription: e.MAX_HELD_DELIVERIES_PER_SUBSCRIPTION,
      maxApiKeysPerWorkspace: e.MAX_API_KEYS_PER_WORKSPACE,
      /** A signed-in person's requests per minute (API keys have their own `limits.requestsPerMinute`). */
      sessionRequestsPerMinute: e.SESSION_REQUESTS_PER_MINUTE,
    },
    auth: {
      trustedProxies: e.TRUSTED_PROXIES,
      anonymousRequestsPerMinute: e.ANONYMOUS_REQUESTS_PER_MINUTE,
      signInMaxConsecutiveFailures: e.SIGN_IN_MAX_CONSECUTIVE_FAILURES,
      signInMaxFailuresPerAddressPerDay: e.SIGN_IN_MAX_FAILURES_PER_ADDRESS_PER_DAY,
    },
    webhooks: { allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS, dnsServers: e.WEBHOOK_DNS_SERVERS, secretKeys: e.WEBHOOK_SECRET_KEYS, maxInFlightLimit: e.WEBHOOK_MAX_IN_FLIGHT_LIMIT, workspaceMaxInFlight: e.WEBHOOK_WORKSPACE_MAX_IN_FLIGHT, maxConnections: e.WEBHOOK_MAX_CONNECTIONS, minRatePerSecond: e.WEBHOOK_MIN_RATE_PER_SECOND, retryMinDelaySeconds: e.WEBHOOK_RETRY_MIN_DELAY_SECONDS },
    retention: {
      webhookLogDays: e.WEBHOOK_LOG_RETENTION_DAYS,
      readNotificationDays: e.READ_NOTIFICATION_RETENTION_DAYS,
      batchSize: e.RETENTION_BATCH_SIZE,
      auditLogDays: e.AUDIT_LOG_RETENTION_DAYS,
    },
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM } : undefined,
    seedDemo: e.SEED_DEMO,
    logLevel: e.LOG_LEVEL,
    // The signal's path goes after the endpoint's own, as the OTLP exporter specification says.
    tracing: e.OTEL_EXPORTER_OTLP_ENDPOINT
      ? { tracesUrl: `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`, serviceName: e.OTEL_SERVICE_NAME }
      : undefined,
  };
}

let loaded: Config | undefined;

/**
 * Makes `env` this process's configuration. Only before anything has read `config` (which parses
 * process.env on its first use otherwise): a second configuration in one process would leave
 * modules disagreeing about it.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  if (loaded) throw new Error('the configuration was already read: call loadConfig(env) before anything uses it');
  return (loaded = parseConfig(env));
}

/** The configuration: what loadConfig(env) parsed, else process.env's, parsed on its first use. */
export const config: Config = onFirstUse(() => loaded ?? loadConfig());
