// The message brokers of the webhook destinations (RabbitMQ, NATS with JetStream, Kafka in KRaft
// mode, moto for Amazon SQS and EventBridge), each run by us on free loopback ports with its data
// in a folder of its own under one brokers folder, for the tests (test/support/brokers.ts), the
// benchmarks and the chaos test. The programs come from scripts/provision.sh.
//
//   npx tsx scripts/throwaway-brokers.ts start [rabbitmq|nats|kafka|aws …]   all four when none named;
//       prints BROKER_RABBITMQ_URL=…, BROKER_NATS_SERVERS=…, BROKER_KAFKA_BROKERS=…,
//       BROKER_AWS_ENDPOINT=… (region us-east-1, any access key) and BROKERS_DIR=…
//   npx tsx scripts/throwaway-brokers.ts stop <BROKERS_DIR>                  stops them, removes the folder
//
// Shared by several processes (the test files of a run): the first process that asks for a broker
// makes its folder (mkdir is the lock: exactly one process succeeds) and starts it; the others
// wait for the address it writes there (`broker.json`), or for the reason it failed (`failed`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { restartBroker, signalBrokerProcesses, startBroker, stopBrokerProcesses, stopBrokers, type BrokerRecord } from './brokers/broker-process.ts';
import { brokerKinds, brokerNames, isBrokerName, type BrokerAddresses, type BrokerName } from './brokers/kinds.ts';
import { provisionForTests } from './provision-env.ts';

export { brokerNames, type BrokerAddresses, type BrokerName };

const WAIT_FOR_STARTER_MS = 180_000; // longer than a start may take (broker-process.ts: 120 s, three tries on a taken port)
const POLL_MS = 100; // a stat of two files while another process starts the broker

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * The broker `name` of `brokersDir`, started by whichever process asks first and shared with every
 * other. With `ownerPid`, a detached watcher stops every broker of the folder once that process is
 * gone (an interrupted test run), should nobody have called `stopBrokers`.
 */
export async function sharedBroker<N extends BrokerName>(brokersDir: string, name: N, { ownerPid }: { ownerPid?: number } = {}): Promise<BrokerAddresses[N]> {
  const dir = path.join(brokersDir, name);
  fs.mkdirSync(brokersDir, { recursive: true });
  try {
    fs.mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return waitForStarter<N>(dir, name);
  }
  fs.writeFileSync(path.join(dir, 'starter'), String(process.pid));
  if (ownerPid !== undefined) watchOwner(brokersDir, ownerPid);
  try {
    return (await startBroker(brokerKinds[name], dir, name)).address;
  } catch (err) {
    fs.writeFileSync(path.join(dir, 'failed'), (err as Error).message);
    throw err;
  }
}

async function waitForStarter<N extends BrokerName>(dir: string, name: N): Promise<BrokerAddresses[N]> {
  const deadline = Date.now() + WAIT_FOR_STARTER_MS;
  for (;;) {
    try {
      return (JSON.parse(fs.readFileSync(path.join(dir, 'broker.json'), 'utf8')) as BrokerRecord<BrokerAddresses[N]>).address;
    } catch {
      // not ready yet
    }
    if (fs.existsSync(path.join(dir, 'failed'))) throw new Error(fs.readFileSync(path.join(dir, 'failed'), 'utf8'));
    let starter: number | undefined;
    try {
      starter = Number(fs.readFileSync(path.join(dir, 'starter'), 'utf8'));
    } catch {
      // the starter has made the folder and not yet written its pid
    }
    if (starter !== undefined && !alive(starter)) throw new Error(`${name}: process ${starter}, which was starting it in ${dir}, ended before it was ready`);
    if (Date.now() > deadline) throw new Error(`${name}: not ready in ${dir} after ${WAIT_FOR_STARTER_MS / 1000} s of waiting for process ${starter ?? '?'}, which starts it`);
    await sleep(POLL_MS);
  }
}

export interface OwnBroker<N extends BrokerName> {
  address: BrokerAddresses[N];
  /** Ends it (SIGTERM, or SIGKILL with `kill`), keeping its folder: clients now get refused. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same ports with the same data (moto's is in memory: it starts empty). */
  start(): Promise<void>;
  /** SIGSTOP: it stops answering without closing anything, as a hung server does. */
  freeze(): void;
  thaw(): void;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

let ownCount = 0;

/** A broker of the caller's own in `brokersDir`, for tests that stop it or freeze it (an outage). */
export async function ownBroker<N extends BrokerName>(brokersDir: string, name: N, { ownerPid }: { ownerPid?: number } = {}): Promise<OwnBroker<N>> {
  const dir = path.join(brokersDir, `own-${name}-${process.pid}-${++ownCount}`);
  fs.mkdirSync(dir, { recursive: true });
  if (ownerPid !== undefined) watchOwner(brokersDir, ownerPid);
  const kind = brokerKinds[name];
  const label = `${name} (own, ${dir})`;
  const { address } = await startBroker(kind, dir, label);
  return {
    address,
    stop: (options) => stopBrokerProcesses(dir, options),
    start: () => restartBroker(kind, dir, label),
    freeze: () => signalBrokerProcesses(dir, 'SIGSTOP'),
    thaw: () => signalBrokerProcesses(dir, 'SIGCONT'),
    async close() {
      await stopBrokerProcesses(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One watcher per brokers folder (mkdir again as the lock), outliving the process that starts it. */
function watchOwner(brokersDir: string, ownerPid: number): void {
  try {
    fs.mkdirSync(path.join(brokersDir, '.watcher'));
  } catch {
    return; // watched already
  }
  const self = fileURLToPath(import.meta.url);
  const watcher = spawn(process.execPath, ['--import', 'tsx', self, 'watch', String(ownerPid), brokersDir], {
    cwd: path.dirname(self),
    detached: true,
    stdio: 'ignore',
  });
  watcher.unref();
}

/** Stops the brokers of `brokersDir` once process `pid` has ended; ends by itself when the folder is gone. */
async function watch(pid: number, brokersDir: string): Promise<void> {
  while (fs.existsSync(brokersDir) && alive(pid)) await sleep(1000);
  if (!fs.existsSync(brokersDir)) return;
  await stopBrokers(brokersDir);
  fs.rmSync(brokersDir, { recursive: true, force: true });
}

/** The lines `start` prints for each broker. */
const envLines: { [N in BrokerName]: (address: BrokerAddresses[N]) => string[] } = {
  rabbitmq: ({ url }) => [`BROKER_RABBITMQ_URL=${url}`],
  nats: ({ servers }) => [`BROKER_NATS_SERVERS=${servers}`],
  kafka: ({ brokers }) => [`BROKER_KAFKA_BROKERS=${brokers.join(',')}`],
  aws: ({ endpoint, region }) => [`BROKER_AWS_ENDPOINT=${endpoint}`, `BROKER_AWS_REGION=${region}`],
};
const envLinesOf = <N extends BrokerName>(name: N, address: BrokerAddresses[N]) => (envLines[name] as (a: BrokerAddresses[N]) => string[])(address);

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'start' && args.every(isBrokerName)) {
    provisionForTests();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'throwaway-brokers-'));
    try {
      const names = args.length > 0 ? args : brokerNames;
      const addresses = await Promise.all(names.map((name) => sharedBroker(dir, name)));
      console.log([...names.flatMap((name, i) => envLinesOf(name, addresses[i])), `BROKERS_DIR=${dir}`].join('\n'));
    } catch (err) {
      await stopBrokers(dir);
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  } else if (command === 'stop' && args.length === 1) {
    await stopBrokers(args[0]);
    fs.rmSync(args[0], { recursive: true, force: true });
  } else if (command === 'watch' && args.length === 2) {
    await watch(Number(args[0]), args[1]);
  } else {
    console.error(`usage: throwaway-brokers.ts start [${brokerNames.join('|')} …] | stop <BROKERS_DIR>`);
    process.exit(2);
  }
}
