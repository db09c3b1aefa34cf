// One broker on loopback as detached processes (each its own process group, so that a stop ends
// whatever the broker's start script forked), with its ports, configuration, data and log in one
// folder. What was started is written there at once (`pids`), so that another process can stop
// it: the tests' global teardown, scripts/throwaway-brokers.ts stop, or the watcher of an
// interrupted run. Readiness is a real client's request, tried every 200 ms until it answers,
// never a fixed sleep.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../free-port.ts';

/** One process of a broker: RabbitMQ's is preceded by an epmd of its own. */
export interface Launch {
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** Started only once this port accepts connections (the broker's own readiness is `probe`). */
  listens?: number;
}

export interface BrokerKind<Address> {
  /** How many loopback ports it needs (listener, controller, distribution…). */
  ports: number;
  /** Configuration files and, for Kafka, the formatted storage: before the first start only. */
  prepare(dir: string, ports: number[]): void;
  launches(dir: string, ports: number[]): Launch[];
  address(ports: number[]): Address;
  /** Resolves when the broker answers a client's request; rejects otherwise (tried again). */
  probe(address: Address): Promise<void>;
}

/** What a broker folder records once the broker is ready. */
export interface BrokerRecord<Address> {
  ports: number[];
  address: Address;
}

const READY_WITHIN_MS = 120_000; // a cold JVM or Erlang VM on two busy cores
const STOP_WITHIN_MS = 20_000; // then SIGKILL
const RETRY_EVERY_MS = 200;

const pidsFile = (dir: string) => path.join(dir, 'pids');
const logFile = (dir: string) => path.join(dir, 'log');

/** The last lines of the broker's log (its stdout and stderr), for an error message. */
function logTail(dir: string, lines = 30): string {
  try {
    return fs.readFileSync(logFile(dir), 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** The process groups of `dir`'s broker that are still running (Linux: /proc; zombies excluded). */
function runningGroups(dir: string): number[] {
  let pids: number[];
  try {
    pids = fs.readFileSync(pidsFile(dir), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return pids.filter(groupAlive);
}

function groupAlive(pgid: number): boolean {
  if (!fs.existsSync('/proc')) {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses: read after the last ')'.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Ends the broker in `dir`: SIGTERM to each process group, last started first; SIGKILL after 20 s. */
export async function stopBrokerProcesses(dir: string, { kill = false } = {}): Promise<void> {
  for (const pgid of runningGroups(dir).reverse()) {
    signalGroup(pgid, 'SIGCONT'); // a frozen broker handles SIGTERM only once it runs again
    signalGroup(pgid, kill ? 'SIGKILL' : 'SIGTERM');
    const deadline = Date.now() + STOP_WITHIN_MS;
    while (groupAlive(pgid)) {
      if (Date.now() > deadline) signalGroup(pgid, 'SIGKILL');
      await sleep(50);
    }
  }
}

/** Stops every broker (each a folder) of `brokersDir` (shared and own), all at once; the folder stays. */
export async function stopBrokers(brokersDir: string): Promise<void> {
  if (!fs.existsSync(brokersDir)) return;
  const dirs = fs.readdirSync(brokersDir, { withFileTypes: true }).filter((e) => e.isDirectory());
  await Promise.all(dirs.map((e) => stopBrokerProcesses(path.join(brokersDir, e.name))));
}

/** SIGSTOP (`freeze`) or SIGCONT: a broker that stops answering without closing its connections. */
export function signalBrokerProcesses(dir: string, signal: 'SIGSTOP' | 'SIGCONT'): void {
  for (const pgid of runningGroups(dir)) signalGroup(pgid, signal);
}

/** Starts `kind` on `ports` (its folder prepared already) and resolves once it answers. */
async function launch<A>(kind: BrokerKind<A>, dir: string, ports: number[], label: string): Promise<A> {
  const log = fs.openSync(logFile(dir), 'a');
  let exited: string | undefined;
  try {
    for (const step of kind.launches(dir, ports)) {
      const child = spawn(step.command, step.args, {
        cwd: dir,
        detached: true,
        stdio: ['ignore', log, log],
        env: { ...process.env, ...step.env },
      });
      child.once('error', (err) => (exited = `could not run ${step.command}: ${err.message}`));
      child.once('exit', (code, signal) => (exited = `${path.basename(step.command)} exited (${signal ?? `code ${code}`})`));
      child.unref();
      if (child.pid !== undefined) fs.appendFileSync(pidsFile(dir), `${child.pid}\n`);
      if (step.listens !== undefined) await until(() => accepts(step.listens!), () => exited, dir, label);
    }
  } finally {
    fs.closeSync(log);
  }
  const address = kind.address(ports);
  await until(
    () => kind.probe(address).then(() => true, () => false),
    () => exited,
    dir,
    label,
  );
  return address;
}

async function until(ready: () => Promise<boolean>, exited: () => string | undefined, dir: string, label: string): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    if (await ready()) return;
    const ended = exited();
    if (ended) throw new BrokerStartError(`${label} did not start: ${ended}. The end of its log (${logFile(dir)}):\n${logTail(dir)}`, logTail(dir));
    if (Date.now() > deadline) throw new BrokerStartError(`${label} did not answer within ${READY_WITHIN_MS / 1000} s. The end of its log (${logFile(dir)}):\n${logTail(dir)}`, logTail(dir));
    await sleep(RETRY_EVERY_MS);
  }
}

class BrokerStartError extends Error {
  constructor(
    message: string,
    readonly log: string,
  ) {
    super(message);
  }
}

const portTaken = (log: string) => /EADDRINUSE|address already in use|eaddrinuse|BindException/i.test(log);

/**
 * A new broker in the empty folder `dir` on free ports. A port that `freePort` handed out can be
 * taken by another process before the broker binds it: a start whose log says so is tried again
 * on fresh ports (and a fresh folder), up to three times. Writes `broker.json` when ready.
 */
export async function startBroker<A>(kind: BrokerKind<A>, dir: string, label: string): Promise<BrokerRecord<A>> {
  for (let attempt = 1; ; attempt++) {
    const ports = await Promise.all(Array.from({ length: kind.ports }, () => freePort()));
    try {
      kind.prepare(dir, ports);
      const address = await launch(kind, dir, ports, label);
      const record: BrokerRecord<A> = { ports, address };
      // Written beside and renamed: a process waiting for it never reads half of it.
      fs.writeFileSync(path.join(dir, 'broker.json.partial'), JSON.stringify(record));
      fs.renameSync(path.join(dir, 'broker.json.partial'), path.join(dir, 'broker.json'));
      return record;
    } catch (err) {
      await stopBrokerProcesses(dir, { kill: true });
      if (attempt >= 3 || !(err instanceof BrokerStartError) || !portTaken(err.log)) throw err;
      for (const entry of fs.readdirSync(dir)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
    }
  }
}

/** The broker of `dir` again, on the ports and with the data it had (after `stopBrokerProcesses`). */
export async function restartBroker<A>(kind: BrokerKind<A>, dir: string, label: string): Promise<void> {
  const { ports } = JSON.parse(fs.readFileSync(path.join(dir, 'broker.json'), 'utf8')) as BrokerRecord<A>;
  fs.rmSync(pidsFile(dir), { force: true });
  try {
    await launch(kind, dir, ports, label);
  } catch (err) {
    await stopBrokerProcesses(dir, { kill: true });
    throw err;
  }
}
