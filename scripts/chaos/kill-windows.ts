// When each process was down: from its kill until it was healthy again. A 5xx or a refused
// connection is expected only in (or just after) such a window; anywhere else it fails the run.

/** After a restart, pools reconnect and caches refill: errors this long after health still count as the kill's. */
const GRACE_MS = 15_000;

export interface KillWindow {
  target: string;
  from: number;
  /** When it was healthy again; undefined while it is down. */
  to?: number;
}

export class KillWindows {
  readonly all: KillWindow[] = [];

  open(target: string): KillWindow {
    const w: KillWindow = { target, from: Date.now() };
    this.all.push(w);
    return w;
  }

  /** The windows that overlap a request sent at `start` and answered at `end`. */
  overlapping(start: number, end: number): KillWindow[] {
    return this.all.filter((w) => start <= (w.to ?? Infinity) + GRACE_MS && end >= w.from);
  }
}
