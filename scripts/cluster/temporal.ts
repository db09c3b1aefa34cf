// The Temporal server on PostgreSQL and Temporal Web, natively, as compose's temporal-schema,
// temporal, temporal-setup and temporal-ui services run them: the same config templates (the
// server's embedded in its binary; the UI's copied from its Go module into .tools/, as its image
// carries it) read the same environment; the same schema steps; the namespace and the search
// attributes are registered through the frontend.
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import {
  composePorts, nativeEndpoints, nativePort, namespace, searchAttributes,
  temporalSchemaSteps, temporalServerEnv, temporalSqlToolEnv, temporalUiEnv,
} from './topology.ts';
import { temporalUi } from './tools.ts';
import { fromRoot } from '../../src/paths.ts';

// A CommonJS module whose namespaces Node's ESM loader cannot name: reach them through its default export.
const { grpc, temporal } = proto;

const postgresPort = nativePort(composePorts.postgres);

/** The server's other ports (history, matching, worker, membership), shifted like the rest. */
function serverPorts(): Record<string, string> {
  const p = (port: number) => String(nativePort(port));
  return {
    FRONTEND_GRPC_PORT: p(7233), FRONTEND_HTTP_PORT: p(7243), FRONTEND_MEMBERSHIP_PORT: p(6933),
    HISTORY_GRPC_PORT: p(7234), HISTORY_MEMBERSHIP_PORT: p(6934),
    MATCHING_GRPC_PORT: p(7235), MATCHING_MEMBERSHIP_PORT: p(6935),
    WORKER_GRPC_PORT: p(7239), WORKER_MEMBERSHIP_PORT: p(6939),
  };
}

/** Ports the native Temporal server binds besides the frontend's (checked free before `up`). */
export const temporalServerPorts = () => Object.values(serverPorts()).map(Number);

/** compose's temporal environment, plus what a container gets for free and one machine needs. */
export function nativeTemporalServerEnv(): Record<string, string> {
  return {
    ...temporalServerEnv('127.0.0.1', postgresPort),
    ...serverPorts(),
    BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    // The template reads the visibility store's port from POSTGRES_PORT (5432 in compose), not DB_PORT.
    VISIBILITY_DB_PORT: String(postgresPort),
    // The file compose mounts at composeDynamicConfigPath, read in place.
    DYNAMIC_CONFIG_FILE_PATH: fromRoot('deploy', 'temporal-dynamic-config.yaml'),
    // Our machines have no internet: no call home for version news.
    TEMPORAL_VERSION_CHECK_DISABLED: '1',
  };
}

export function nativeTemporalUiEnv(): Record<string, string> {
  return { ...temporalUiEnv(nativeEndpoints), TEMPORAL_UI_PORT: String(nativePort(composePorts.temporalUi)) };
}

/** The server as its image runs it: `start` on the config template embedded in the binary. */
export const serverCommand = (bin: string) => ({ command: bin, args: ['start'] });
/** Temporal Web as its image runs it (config dir `config`, environment `docker`). */
export const uiCommand = (bin: string) => ({ command: bin, args: ['--root', temporalUi.home, '--config', 'config', '--env', 'docker', 'start'] });

/** The schema steps compose's temporal-schema runs (temporalSchemaSteps), with the same temporal-sql-tool. */
export function setupSchema(sqlTool: string, log: (line: string) => void): void {
  log('bringing the Temporal databases and their schema up to date (temporal-sql-tool)');
  const env = { ...process.env, ...temporalSqlToolEnv('127.0.0.1', postgresPort) };
  for (const args of temporalSchemaSteps) execFileSync(sqlTool, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** True when the frontend answers the gRPC health check with SERVING. */
export async function temporalServing(address = nativeEndpoints.temporal): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 }).catch(() => undefined);
  if (!connection) return false;
  try {
    const { status } = await connection.healthService.check({});
    return status === grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING;
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}

/** What compose's temporal-setup does: the default namespace, then our search attributes. */
export async function registerNamespaceAndSearchAttributes(log: (line: string) => void): Promise<void> {
  const connection = await Connection.connect({ address: nativeEndpoints.temporal });
  try {
    const described = await connection.workflowService.describeNamespace({ namespace: namespace.name }).catch(() => undefined);
    if (!described) {
      log(`registering the ${namespace.name} namespace (retention ${namespace.retention})`);
      await connection.workflowService.registerNamespace({
        namespace: namespace.name,
        workflowExecutionRetentionPeriod: msToTs(namespace.retention),
      });
    }
    const wanted = Object.keys(searchAttributes);
    // A new namespace reaches the server's namespace cache within seconds: retry until it does.
    for (let attempt = 1; ; attempt++) {
      try {
        const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: namespace.name });
        const missing = wanted.filter((name) => !(name in (customAttributes ?? {})));
        if (missing.length === 0) return;
        log(`adding search attributes ${missing.join(', ')}`);
        await connection.operatorService.addSearchAttributes({
          namespace: namespace.name,
          searchAttributes: Object.fromEntries(missing.map((name) => [name, indexedValueType(searchAttributes[name as keyof typeof searchAttributes])])),
        });
      } catch (err) {
        if (attempt >= 60) throw err;
        await sleep(1_000);
      }
    }
  } finally {
    await connection.close();
  }
}

/** 'Keyword' -> INDEXED_VALUE_TYPE_KEYWORD, 'KeywordList' -> INDEXED_VALUE_TYPE_KEYWORD_LIST. */
function indexedValueType(type: string) {
  const name = `INDEXED_VALUE_TYPE_${type.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
  return temporal.api.enums.v1.IndexedValueType[name as keyof typeof temporal.api.enums.v1.IndexedValueType];
}
