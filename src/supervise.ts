// Keeps a task running: runs it again when it ends or fails, backing off while it keeps failing.
// The Temporal worker, the embedded Temporal server, the outbox relay and the notification
// listener all live in this one loop: its waits, its back-off, its logging and its stop.
import { logger } from './logger.ts';

export interface SuperviseLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface SupervisedRun {
  /** Aborted by `stop()`: a run that waits for something stops waiting. */
  signal: AbortSignal;
  /** The task works again: the failure count starts over (and the recovery is logged after failures). */
  healthy: () => void;
  /** Failures in a row before this run. */
  failures: () => number;
}

interface SuperviseOptions {
  /** One run of the task: it resolves when the task ended as it should, throws when it failed. */
  run(context: SupervisedRun): Promise<void>;
  /** The wait before the next run after `failures` (1 or more) failures in a row. */
  backoffMs(failures: number): number;
  /** The wait after a run that did not fail (a poll interval). Default: `backoffMs(1)`. */
  idleMs?: number;
  /** Logged at warn level on the first failure in a row and every `logEvery`th. */
  failed: string;
  logEvery?: number;
  /** Logged at info level when the task is healthy after failures. */
  recovered?: string;
  /** Added to both log lines. */
  fields?: object;
  log?: SuperviseLog;
  /** The waits do not keep the process alive. */
  unref?: boolean;
}

export interface Supervisor {
  /**
   * New work: ends an idle wait at once, or skips the next one when a run is under way. A
   * back-off wait is not cut short (what failed is given its time).
   */
  wake(): void;
  /** Failures in a row so far. */
  failures(): number;
  /** Aborts the run's signal, ends any wait and resolves when the loop has ended. */
  stop(): Promise<void>;
}

/** Resolves when `signal` aborts (at once when it already has). */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

export function supervise(options: SuperviseOptions): Supervisor {
  const log = options.log ?? logger;
  const logEvery = options.logEvery ?? 20;
  const controller = new AbortController();
  const { signal } = controller;
  let failures = 0;
  let woken = false;
  /** Ends the current wait; set while an idle wait may be cut short by `wake()`. */
  let endWait: (() => void) | undefined;
  let idleWait = false;

  const healthy = () => {
    if (failures > 0 && options.recovered) log.info({ ...options.fields }, options.recovered);
    failures = 0;
  };
  const wait = (ms: number, idle: boolean) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      if (options.unref) timer.unref();
      idleWait = idle;
      endWait = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (endWait = undefined));

  const loop = (async () => {
    while (!signal.aborted) {
      woken = false;
      try {
        await options.run({ signal, healthy, failures: () => failures });
        healthy();
      } catch (err) {
        failures += 1;
        if (!signal.aborted && (failures === 1 || failures % logEvery === 0)) {
          log.warn({ err, failures, ...options.fields }, options.failed);
        }
      }
      if (signal.aborted) break;
      if (failures === 0 && woken) continue;
      await wait(failures ? options.backoffMs(failures) : (options.idleMs ?? options.backoffMs(1)), failures === 0);
    }
  })();

  return {
    wake() {
      woken = true;
      if (idleWait) endWait?.();
    },
    failures: () => failures,
    async stop() {
      controller.abort();
      endWait?.();
      await loop;
    },
  };
}
