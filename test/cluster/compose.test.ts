// docker-compose.yml is valid for a real compose implementation, and it describes the topology
// that `npm run cluster` runs natively (scripts/cluster/topology.ts): the same images' versions,
// the same environment, the same processes and counts, and the commands `npm start` runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot, repoRoot } from '../../src/paths.ts';
import {
  appEnv, appProcesses, composeEndpoints, composePorts, images, namespace, postgresEnv, searchAttributes,
  temporalSchemaSteps, temporalServerEnv, temporalSqlToolEnv, temporalUiEnv, composeDynamicConfigPath,
} from '../../scripts/cluster/topology.ts';
import { nativeTemporalServerEnv } from '../../scripts/cluster/temporal.ts';
import { devServerDynamicConfig } from '../../src/temporal/dev-server.ts';
import { dockerCompose } from './docker-compose.ts';
import { newSecretKeys } from '../../src/webhooks/message/secret-box.ts';
import { startCommand, type StartCommand } from './start-command.ts';

interface ComposeService {
  image?: string;
  command?: string[] | string;
  environment?: Record<string, string>;
  ports?: { published: number | string; target: number }[];
  deploy?: { replicas?: number };
  volumes?: unknown[];
}

let services: Record<string, ComposeService>;
const file = fromRoot('docker-compose.yml');
/** The operator's WEBHOOK_SECRET_KEYS (their environment or .env), which production requires. */
const secretKeys = newSecretKeys();

beforeAll(() => {
  const compose = dockerCompose();
  const env = { ...process.env, WEBHOOK_SECRET_KEYS: secretKeys };
  // `config -q` validates against the Compose specification; `config` prints the resolved model
  // (anchors merged, ports in long form), which the checks below read.
  execFileSync(compose, ['-f', file, 'config', '-q'], { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const resolved = execFileSync(compose, ['-f', file, 'config'], { cwd: repoRoot, env, encoding: 'utf8' });
  services = (load(resolved) as { services: Record<string, ComposeService> }).services;
}, 600_000);

/** Each container that runs the app, as the native processes are listed. */
function composeAppProcesses() {
  return Object.entries(services)
    .filter(([, s]) => Array.isArray(s.command) && s.command.includes('dist/main.js'))
    .flatMap(([name, s]) => Array.from({ length: s.deploy?.replicas ?? 1 }, () => ({
      service: name,
      role: (s.command as string[]).at(-1),
      publishedPort: s.ports?.map((p) => Number(p.published))[0],
      env: s.environment,
    })));
}

describe('docker-compose.yml', () => {
  it('runs the images of the native topology: the same Temporal server, UI, PostgreSQL and Redis versions', () => {
    expect(services.postgres?.image).toBe(images.postgres);
    expect(services.redis?.image).toBe(images.redis);
    expect(services.temporal?.image).toBe(images.temporal);
    expect(services['temporal-schema']?.image).toBe(images.temporalSetup);
    expect(services['temporal-setup']?.image).toBe(images.temporalSetup);
    expect(services['temporal-ui']?.image).toBe(images.temporalUi);
  });

  it('configures PostgreSQL, the Temporal server and Temporal Web with the settings the native ones get', () => {
    expect(services.postgres?.environment).toEqual(postgresEnv());
    expect(services.temporal?.environment).toEqual(temporalServerEnv('postgres', composePorts.postgres));
    expect(services['temporal-ui']?.environment).toEqual(temporalUiEnv(composeEndpoints));
    // Temporal Web has no sign-in and can terminate workflows: published on loopback only (with a
    // host address, Compose 1.29 prints the port in its short form).
    expect(services['temporal-ui']?.ports as unknown).toEqual([`127.0.0.1:${composePorts.temporalUi}:8080/tcp`]);
  });

  it("gives the Temporal server the delivery runs' dynamic config, the same values as the dev server of npm start", () => {
    const file = 'deploy/temporal-dynamic-config.yaml';
    // Compose prints the bind with the file's absolute path (as a string or an object, by version).
    const mounts = JSON.stringify(services.temporal?.volumes ?? []);
    expect(mounts).toContain(fromRoot(file));
    expect(mounts).toContain(composeDynamicConfigPath);
    const settings = load(readFileSync(fromRoot(file), 'utf8')) as Record<string, { value: unknown }[]>;
    expect(Object.keys(settings).length).toBeGreaterThan(0);
    // Every setting of the file is the dev server's too, with the same value.
    for (const [key, [{ value }]] of Object.entries(settings)) expect([key, devServerDynamicConfig[key as keyof typeof devServerDynamicConfig]]).toEqual([key, value]);
    expect(nativeTemporalServerEnv().DYNAMIC_CONFIG_FILE_PATH).toBe(fromRoot(file));
  });

  it('will not run without WEBHOOK_SECRET_KEYS, which production requires, and says how to set it', () => {
    const run = spawnSync(dockerCompose(), ['-f', file, 'config', '-q'], { cwd: repoRoot, env: { ...process.env, WEBHOOK_SECRET_KEYS: '' }, encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('set WEBHOOK_SECRET_KEYS, e.g. in .env');
  });

  it('makes the Temporal databases with the schema steps the native cluster runs, with the same connection', () => {
    expect(services['temporal-schema']?.environment).toEqual(temporalSqlToolEnv('postgres', composePorts.postgres));
    const script = [services['temporal-schema']?.command].flat().join(' ').trim().split(/\s*&&\s*/).map((step) => step.trim().split(/\s+/));
    expect(script).toEqual(temporalSchemaSteps.map((args) => ['temporal-sql-tool', ...args]));
  });

  it('registers the default namespace with the native retention', () => {
    const script = [services['temporal-setup']?.command].flat().join('\n');
    expect(script).toContain(`temporal operator namespace create --namespace ${namespace.name} --retention ${namespace.retention}`);
  });

  it('registers the search attributes of delivery workflows, with their types', () => {
    const script = [services['temporal-setup']?.command].flat().join('\n');
    // One `name:type` pair a word; the loop splits each into --name and --type.
    const loop = /for a in ([^;]+);.*--name \$\$?\{a%%:\*\} --type \$\$?\{a##\*:\}/s.exec(script);
    expect(loop).not.toBeNull();
    const pairs = loop![1].trim().split(/\s+/).map((w) => w.split(':') as [string, string]);
    expect(Object.fromEntries(pairs)).toEqual(searchAttributes);
  });

  it('runs as many api and worker processes as the native topology, with the same environment and ports', () => {
    const composeApps = composeAppProcesses().map(({ role, publishedPort, env }) => ({ role, publishedPort, env }));
    const native = appProcesses.map((p) => ({ role: p.role, publishedPort: p.publishedPort, env: { ...appEnv(composeEndpoints, secretKeys), ...p.env } }));
    const key = (p: { role?: string; publishedPort?: number }) => `${p.role}:${p.publishedPort ?? ''}`;
    expect([...composeApps].sort((a, b) => key(a).localeCompare(key(b)))).toEqual([...native].sort((a, b) => key(a).localeCompare(key(b))));
  });
});

describe('the commands of the app containers', () => {
  const commands: Partial<Record<'api' | 'worker', StartCommand>> = {};
  beforeAll(() => {
    commands.api = startCommand('api');
    commands.worker = startCommand('worker');
  }, 600_000);

  it('are what `npm start -- api|worker` executes (bundle, heap flags)', () => {
    for (const { service, role } of composeAppProcesses()) {
      expect({ service, command: services[service]?.command }).toEqual({ service, command: commands[role as 'api' | 'worker']?.argv });
    }
  });

  it("are the Dockerfile's default command and malloc setting", () => {
    const dockerfile = readFileSync(fromRoot('Dockerfile'), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
    expect(cmd && JSON.parse(cmd[1])).toEqual(commands.api?.argv);
    expect(/^ENV MALLOC_ARENA_MAX=(\S+)$/m.exec(dockerfile)?.[1] ?? '').toBe(commands.api?.mallocArenaMax);
  });
});
