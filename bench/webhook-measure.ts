// What the webhook benchmarks measure with: CPU time from /proc, medians, and the random
// order of alternating rounds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { percentile } from './percentile.ts';

/** CPU time (user + system, ms) of a process so far, from /proc. */
export function cpuMsOfPid(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU time of the whole machine (every process, kernel included) from /proc/stat, in ms of one
 * core: busy, and idle (iowait counted as idle). On a machine shared with other work, busy counts
 * theirs too: compare it only between rounds that alternate.
 */
export function machineCpu() {
  const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = ticks[3] + (ticks[4] ?? 0);
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busyMs: (total - idle) * 10, idleMs: idle * 10 };
}


export function median(xs: number[]): number {
  return percentile([...xs].sort((a, b) => a - b), 50);
}

export function shuffle<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
