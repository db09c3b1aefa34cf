// The production topology as data: what docker-compose.yml runs in containers and what
// `npm run cluster -- up` runs natively on one machine. Both are derived from here (the native
// scripts directly; docker-compose.yml is checked against it by test/cluster/compose.test.ts), so
// versions, settings and process counts cannot drift apart.
import { deliverySearchAttributes } from '../../src/temporal/search-attribute-types.ts';

export const versions = {
  /**
   * temporalio/server:<this> and temporalio/admin-tools:<this> (temporal-sql-tool and the CLI);
   * natively go.temporal.io/server@v<this> (server and temporal-sql-tool). 1.29 or later for
   * task-queue fairness (deploy/temporal-dynamic-config.yaml); auto-setup ended with 1.29.
   */
  temporalServer: '1.32.1',
  /** temporalio/ui:<this>; natively github.com/temporalio/ui-server/v2@v<this> (the image's server). */
  temporalUi: '2.45.1',
  /** postgres:<this>; natively Debian's postgresql-<this>. */
  postgresMajor: 15,
  /** redis:<this>; natively Debian's redis-server (7.0). */
  redisMajor: 7,
};

export const images = {
  postgres: `postgres:${versions.postgresMajor}`,
  redis: `redis:${versions.redisMajor}`,
  temporal: `temporalio/server:${versions.temporalServer}`,
  /** compose's temporal-schema and temporal-setup. */
  temporalSetup: `temporalio/admin-tools:${versions.temporalServer}`,
  temporalUi: `temporalio/ui:${versions.temporalUi}`,
};

/**
 * The compose ports (inside the containers, and published for api and Temporal Web). `metrics` is
 * each api and worker container's /metrics (METRICS_PORT), for a Prometheus on the compose
 * network: never published, as it has no token.
 */
export const composePorts = { postgres: 5432, redis: 6379, temporal: 7233, temporalUi: 8080, api: 3000, metrics: 9400 };
/** Natively every port is the compose one + this, clear of a developer's `npm start` (3000, 7233, 8233). */
const nativePortOffset = 10000;

/**
 * The app's processes: each is `npm start -- <role>`; compose runs the same bundle (api-1, api-2,
 * worker with 2 replicas). `env` is on top of appEnv(): one instance seeds the demo workspace,
 * since two starting at once on an empty database would race.
 */
export const appProcesses: readonly AppProcess[] = [
  { name: 'api-1', role: 'api', publishedPort: composePorts.api, env: {} },
  { name: 'api-2', role: 'api', publishedPort: composePorts.api + 1, env: { SEED_DEMO: 'false' } },
  { name: 'worker-1', role: 'worker', env: {} },
  { name: 'worker-2', role: 'worker', env: {} },
];
export interface AppProcess {
  name: string;
  role: 'api' | 'worker';
  /** The host port compose publishes (the container listens on 3000); natively + nativePortOffset. */
  publishedPort?: number;
  env: Record<string, string>;
}

const database = { user: 'ticketing', password: 'ticketing', name: 'ticketing' };
/** The Temporal server's own role (docker/postgres-init.sql creates it in both topologies). */
const temporalDatabase = { user: 'temporal', password: 'temporal', databases: ['temporal', 'temporal_visibility'] };
export const namespace = { name: 'default', retention: '24h' } as const;
export const searchAttributes = deliverySearchAttributes;

/** Where things are, as seen by the app's processes. */
export interface Endpoints {
  postgres: string;
  redis: string;
  temporal: string;
  temporalUiUrl: string;
  /** The address integrators use (api-1's port; a load balancer's in real life). */
  publicApiOrigin: string;
  /** HTTP bind address of the api processes. */
  host: string;
}

export const composeEndpoints: Endpoints = {
  postgres: `postgres:${composePorts.postgres}`,
  redis: `redis:${composePorts.redis}`,
  temporal: `temporal:${composePorts.temporal}`,
  temporalUiUrl: `http://localhost:${composePorts.temporalUi}`,
  publicApiOrigin: `http://localhost:${composePorts.api}`,
  host: '0.0.0.0',
};

export const nativePort = (composePort: number) => composePort + nativePortOffset;
/** Natively the app's processes share one host, so each has a metrics port of its own: 19400, 19401, … in appProcesses' order. */
export const nativeMetricsPort = (p: AppProcess) => nativePort(composePorts.metrics) + appProcesses.indexOf(p);

export const nativeEndpoints: Endpoints = {
  postgres: `127.0.0.1:${nativePort(composePorts.postgres)}`,
  redis: `127.0.0.1:${nativePort(composePorts.redis)}`,
  temporal: `127.0.0.1:${nativePort(composePorts.temporal)}`,
  temporalUiUrl: `http://localhost:${nativePort(composePorts.temporalUi)}`,
  publicApiOrigin: `http://localhost:${nativePort(composePorts.api)}`,
  host: '127.0.0.1',
};

export const databaseUrl = (e: Endpoints) => `postgresql://${database.user}:${database.password}@${e.postgres}/${database.name}`;

/**
 * The environment of every api and worker process (PORT is the default 3000 in a container).
 * `secretKeys`: WEBHOOK_SECRET_KEYS, which production requires (compose: from the operator's
 * environment or .env; natively: scripts/cluster/secret-keys.ts).
 */
export function appEnv(e: Endpoints, secretKeys: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl(e),
    TEMPORAL_ADDRESS: e.temporal,
    TEMPORAL_NAMESPACE: namespace.name,
    TEMPORAL_UI_URL: e.temporalUiUrl,
    REDIS_URL: `redis://${e.redis}`,
    PUBLIC_BASE_URL: `${e.publicApiOrigin}/public/v1`,
    HOST: e.host,
    NODE_ENV: 'production',
    WEBHOOK_SECRET_KEYS: secretKeys,
    // /metrics on a port of its own (natively: nativeMetricsPort), since production keeps it off PORT.
    METRICS_PORT: String(composePorts.metrics),
  };
}

/** The postgres image's settings; natively initdb makes the same superuser and database. */
export const postgresEnv = () => ({
  POSTGRES_USER: database.user,
  POSTGRES_PASSWORD: database.password,
  POSTGRES_DB: database.name,
});

/** deploy/temporal-dynamic-config.yaml, where compose mounts it in the Temporal container (the native cluster reads it in place). */
export const composeDynamicConfigPath = '/etc/temporal/config/dynamicconfig/deliveries.yaml';

/** What the server's embedded config template (`temporal-server start` without --config, as the image runs it) reads. */
export function temporalServerEnv(postgresHost: string, postgresPort: number): Record<string, string> {
  return {
    DB: 'postgres12',
    DYNAMIC_CONFIG_FILE_PATH: composeDynamicConfigPath,
    DB_PORT: String(postgresPort),
    POSTGRES_USER: temporalDatabase.user,
    POSTGRES_PWD: temporalDatabase.password,
    POSTGRES_SEEDS: postgresHost,
  };
}

/** temporal-sql-tool's connection (its flags' environment variables) to the Temporal databases. */
export function temporalSqlToolEnv(postgresHost: string, postgresPort: number): Record<string, string> {
  return {
    SQL_PLUGIN: 'postgres12', SQL_HOST: postgresHost, SQL_PORT: String(postgresPort),
    SQL_USER: temporalDatabase.user, SQL_PASSWORD: temporalDatabase.password,
  };
}

/**
 * The schema steps auto-setup ran, as temporal-sql-tool arguments: compose's temporal-schema runs
 * them before the server starts, the native cluster before it spawns it. Each is idempotent, so
 * both run them on every start: create-database ignores an existing database, `setup-schema -v
 * 0.0` leaves a newer version alone, update-schema applies only the versions missing, from the
 * schema embedded in the tool (an upgraded server's new versions on the next start).
 */
export const temporalSchemaSteps: readonly string[][] = [
  ['temporal', 'postgresql/v12/temporal'],
  ['temporal_visibility', 'postgresql/v12/visibility'],
].flatMap(([database, schema]) => [
  ['--database', database, 'create-database'],
  ['--database', database, 'setup-schema', '-v', '0.0'],
  ['--database', database, 'update-schema', '--schema-name', schema],
]);

/** What the UI server's config template (config/docker.yaml of ui-server) reads. */
export function temporalUiEnv(e: Endpoints): Record<string, string> {
  return { TEMPORAL_ADDRESS: e.temporal, TEMPORAL_CORS_ORIGINS: e.publicApiOrigin };
}
