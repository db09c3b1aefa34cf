// `npm run bench:destinations`: webhook deliveries to the broker destinations (Amazon SQS and
// EventBridge through moto, Apache Kafka, RabbitMQ, NATS JetStream), beside HTTPS, on the service
// as `npm start` runs it, through the public API only.
//
//   npm run bench:destinations -- [--cases throughput,outage] [--postgres] [--events 2000]
//     [--aws-events 400] [--concurrency 20] [--types https,sqs,eventbridge,kafka,rabbitmq,nats]
//     [--frozen rabbitmq] [--other nats] [--outage-seconds 60] [--idle-seconds 20] [--every-ms 500]
//     [--drain-seconds 300] [--poll-ms 50] [--cpu-prof DIR] [--out bench/results]
//
// The service is built and started as `npm start` does (bench/npm-start.ts): PGlite inside its one
// process and the Temporal dev server; with `--postgres` on PostgreSQL instead (DATABASE_URL's
// server, else a throwaway cluster), a fresh database per case. Each case starts the service
// afresh on a new data directory. The brokers are real servers on loopback, started here from
// what scripts/provision.sh installed (scripts/throwaway-brokers.ts, each the run's own); the
// HTTPS receiver is in this process (bench/webhook-case-receivers.ts, own CA).
//   - throughput (bench/destination-throughput.ts): two subscriptions per type, `--events` events
//     held while paused (`--aws-events` for SQS and EventBridge, a workspace of their own, since
//     moto is slow), each type's pair resumed alone, HTTPS beside each group: deliveries/s and CPU
//     per delivery, every (event, subscription) read back.
//   - outage (bench/destination-outage.ts): `--frozen`'s broker stops answering (SIGSTOP) for
//     `--outage-seconds` while a ticket is updated every `--every-ms`: the other subscriptions'
//     (HTTPS and `--other`'s broker) event-to-arrival against idle, and the frozen broker's two
//     subscriptions' events once it is back.
// Writes destinations-latest.md under bench/results/ (destinations-postgres-latest.md with --postgres).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ownBroker, type BrokerName, type OwnBroker } from '../scripts/throwaway-brokers.ts';
import { provisionForTests } from '../scripts/provision-env.ts';
import { BROKER_TYPES, type BrokerType } from '../src/webhooks/message/destinations/settings.ts';
import { createTestCa } from '../test/webhooks/receiver.ts';
import { currentCommit } from './baseline-worktree.ts';
import { benchDatabase, type BenchDatabase } from './bench-database.ts';
import { closeTargets, isTargetType, type BrokerSet, type TargetType } from './destination-targets.ts';
import { startPhaseService, type PhaseService } from './destination-service.ts';
import { throughputCase, type ThroughputResult } from './destination-throughput.ts';
import { outageCase, type OutageResult } from './destination-outage.ts';
import { destinationsReport } from './destination-report.ts';
import { runBench, writeResults } from './lifecycle.ts';
import { buildService } from './npm-start.ts';
import { startCaseReceiver, type CaseReceiver } from './webhook-case-receivers.ts';
import { uptime } from './webhook-measure.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const { values: opts } = parseArgs({
  options: {
    cases: { type: 'string', default: 'throughput,outage' },
    postgres: { type: 'boolean', default: false },
    events: { type: 'string', default: '2000' },
    // moto answers SQS and EventBridge slowly (Python, one process), and reading 4,000 messages back from it takes minutes.
    'aws-events': { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '20' },
    types: { type: 'string', default: 'https,sqs,eventbridge,kafka,rabbitmq,nats' },
    frozen: { type: 'string', default: 'rabbitmq' },
    other: { type: 'string', default: 'nats' },
    'outage-seconds': { type: 'string', default: '60' },
    'idle-seconds': { type: 'string', default: '20' },
    'every-ms': { type: 'string', default: '500' },
    'drain-seconds': { type: 'string', default: '300' },
    'poll-ms': { type: 'string', default: '50' },
    'cpu-prof': { type: 'string' },
    out: { type: 'string', default: path.join(here, 'results') },
  },
});
const num = (k: keyof typeof opts) => Number(opts[k]);
const cases = new Set(String(opts.cases).split(','));
for (const c of cases) if (c !== 'throughput' && c !== 'outage') throw new Error(`--cases: unknown case ${c} (throughput, outage)`);
const types = String(opts.types).split(',');
for (const t of types) if (!isTargetType(t)) throw new Error(`--types: unknown type ${t}`);
const isBroker = (t: string): t is BrokerType => (BROKER_TYPES as readonly string[]).includes(t);
const frozen = String(opts.frozen);
const other = String(opts.other);
if (!isBroker(frozen) || !isBroker(other) || frozen === other || brokerOf(frozen) === brokerOf(other)) throw new Error('--frozen and --other: two broker types on different brokers');

const log = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);

/** The broker serving a destination type (moto serves both AWS types). */
function brokerOf(type: BrokerType): BrokerName {
  return type === 'sqs' || type === 'eventbridge' ? 'aws' : type;
}

let database: BenchDatabase | undefined;
let receiver: CaseReceiver | undefined;
let service: PhaseService | undefined;
const brokers = new Map<BrokerName, OwnBroker<BrokerName>>();
const tmpDirs: string[] = [];

async function cleanup() {
  await service?.stop().catch(() => undefined);
  service = undefined;
  // A frozen broker is let go first (close() continues it too): nothing of ours stays stopped, and its consumers can close.
  for (const b of brokers.values()) b.thaw();
  await closeTargets();
  await Promise.all([...brokers.values()].map((b) => b.close().catch(() => undefined)));
  brokers.clear();
  await receiver?.close();
  receiver = undefined;
  for (const d of tmpDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  database?.cluster?.stop();
  database = undefined;
}

/** The process groups of the broker `name` of `brokersDir` (each own broker's folder lists what it started). */
function groupsOf(brokersDir: string, name: BrokerName): number[] {
  return fs
    .readdirSync(brokersDir)
    .filter((d) => d.startsWith(`own-${name}-`))
    .flatMap((d) => fs.readFileSync(path.join(brokersDir, d, 'pids'), 'utf8').split('\n').filter(Boolean).map(Number));
}

/**
 * A PATH whose `node` is the real one with --cpu-prof (NODE_OPTIONS may not carry it), so that
 * `npm start`'s script (scripts/start.sh runs `node`) writes a profile when the service exits.
 */
function profilingPath(tmp: string, dir: string): Record<string, string> {
  const bin = path.join(tmp, 'profiling-bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'node'), `#!/bin/sh\nexec ${process.execPath} --cpu-prof --cpu-prof-dir=${dir} "$@"\n`, { mode: 0o755 });
  return { PATH: `${bin}:${process.env.PATH ?? ''}` };
}

async function main() {
  const loadBefore = uptime();
  if (opts.postgres) database = await benchDatabase(log);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-destinations-'));
  tmpDirs.push(tmp);
  const tls = createTestCa();
  const caFile = path.join(tmp, 'ca.pem');
  fs.writeFileSync(caFile, tls.ca);
  receiver = await startCaseReceiver(tls);

  const wanted = new Set<BrokerName>();
  if (cases.has('throughput')) for (const t of types) if (isBroker(t)) wanted.add(brokerOf(t));
  if (cases.has('outage')) for (const t of [frozen, other] as BrokerType[]) wanted.add(brokerOf(t));
  const brokersDir = path.join(tmp, 'brokers');
  // The brokers' programs, as the tests have them (scripts/provision.sh --for test).
  provisionForTests();
  log(`Starting the brokers: ${[...wanted].join(', ')}`);
  await Promise.all([...wanted].map(async (name) => void brokers.set(name, await ownBroker<BrokerName>(brokersDir, name, { ownerPid: process.pid }))));
  const brokerSet = Object.fromEntries([...brokers].map(([name, b]) => [name, b.address])) as BrokerSet;
  const brokerGroups = Object.fromEntries(BROKER_TYPES.filter((t) => brokers.has(brokerOf(t))).map((t) => [t, groupsOf(brokersDir, brokerOf(t))]));

  log('Building the service (scripts/build.ts)');
  buildService(root, process.env);
  const common = {
    tree: root,
    caFile,
    postgresUrl: database?.url,
    receiver,
    brokers: brokerSet,
    brokerGroups,
    log,
  };
  const profile = opts['cpu-prof'] ? profilingPath(tmp, path.resolve(String(opts['cpu-prof']))) : {};
  // Polls of the backlogs and the events feed are API requests too: the allowance is not what is measured.
  const allowance: Record<string, string> = { DEFAULT_REQUESTS_PER_MINUTE: '1000000' };

  let throughput: ThroughputResult | undefined;
  if (cases.has('throughput')) {
    const isAws = (t: string) => t === 'sqs' || t === 'eventbridge';
    const withHttps = (ts: string[]) => [...(types.includes('https') ? ['https'] : []), ...ts] as TargetType[];
    const others = types.filter((t) => t !== 'https' && !isAws(t));
    const aws = types.filter(isAws);
    // Each group has HTTPS beside its brokers, the figure of the same run they are read against.
    const groups = [
      ...(others.length || !aws.length ? [{ name: 'brokers', types: withHttps(others), events: num('events') }] : []),
      ...(aws.length ? [{ name: 'aws', types: withHttps(aws), events: num('aws-events') }] : []),
    ];
    const most = Math.max(...groups.map((g) => g.events));
    service = await startPhaseService({
      ...common,
      tag: 'throughput',
      // Each paused subscription holds every event of its group (the product's default cap is 100).
      env: { ...allowance, ...profile, MAX_HELD_DELIVERIES_PER_SUBSCRIPTION: String(most + 100) },
    });
    throughput = await throughputCase(service, { groups, concurrency: num('concurrency'), drainTimeoutMs: Math.max(300_000, most * 200), log });
    await service.stop();
    service = undefined;
  }

  let outage: OutageResult | undefined;
  if (cases.has('outage')) {
    service = await startPhaseService({ ...common, tag: 'outage', env: { ...allowance, ...profile } });
    const b = brokers.get(brokerOf(frozen as BrokerType))!;
    outage = await outageCase(service, {
      frozen: frozen as BrokerType,
      other: other as BrokerType,
      seconds: num('outage-seconds'),
      idleSeconds: num('idle-seconds'),
      everyMs: num('every-ms'),
      drainSeconds: num('drain-seconds'),
      pollMs: num('poll-ms'),
      freeze: () => b.freeze(),
      thaw: () => b.thaw(),
      log,
    });
    await service.stop();
    service = undefined;
  }

  const loadAfter = uptime();
  const ranOn = database;
  await cleanup();
  const markdown = destinationsReport({
    commit: currentCommit(root),
    database: ranOn ? `PostgreSQL ${ranOn.version} (${ranOn.note}), a fresh database per case` : "PGlite in the service's process",
    loadBefore,
    loadAfter,
    options: { concurrency: num('concurrency'), outageSeconds: num('outage-seconds'), idleSeconds: num('idle-seconds'), everyMs: num('every-ms'), pollMs: num('poll-ms'), drainSeconds: num('drain-seconds') },
    throughput,
    outage,
  });
  console.log(markdown);
  writeResults(path.join(String(opts.out), `destinations${ranOn ? '-postgres' : ''}-latest.md`), markdown, log);
  log(`Raw figures: ${JSON.stringify({ throughput, outage })}`);
}

runBench(main, cleanup, 60 * 60_000);
