// Kills the cluster's processes one at a time at random moments and starts them again: SIGKILL
// for the api and worker processes, the Temporal server and Redis; PostgreSQL's immediate
// shutdown (a crash as far as its data is concerned). Every target is hit at least once, in a
// random order, and the round repeats while the load runs.
import { setTimeout as sleep } from 'node:timers/promises';
import { waitHealthy } from '../cluster/control.ts';
import type { Service } from '../cluster/services.ts';
import type { KillWindows } from './kill-windows.ts';

export interface MonkeyOptions {
  targets: Service[];
  windows: KillWindows;
  /** True while another round should follow the current one. */
  another: () => boolean;
  /** Random seconds between one process healthy again and the next kill. */
  pauseSeconds: [number, number];
  log: (line: string) => void;
}

const between = ([min, max]: [number, number]) => (min + Math.random() * (max - min)) * 1000;

function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Returns the number of kills. */
export async function runMonkey(o: MonkeyOptions): Promise<number> {
  let kills = 0;
  do {
    for (const target of shuffled(o.targets)) {
      await sleep(between(o.pauseSeconds));
      const window = o.windows.open(target.name);
      const how = target.name === 'postgres' ? 'immediate shutdown' : 'SIGKILL';
      if (!(await target.kill())) throw new Error(`${target.name} was not running when its turn came`);
      kills += 1;
      // Down for a moment: requests and deliveries meet it dead, not only restarting.
      await sleep(between([0.5, 4]));
      await target.start(() => undefined);
      await waitHealthy(target);
      window.to = Date.now();
      o.log(`chaos: ${target.name} ${how}, healthy again after ${((window.to - window.from) / 1000).toFixed(1)} s`);
    }
  } while (o.another());
  return kills;
}
