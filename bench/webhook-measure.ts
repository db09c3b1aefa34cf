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


/** The pid of the process listening on TCP `port` (the dev server's CLI on its port), for its CPU time. */
export function devServerPid(port: number): number | undefined {
  try {
    const out = execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
    const pid = /pid=(\d+)/.exec(out)?.[1];
    return pid ? Number(pid) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, ms) so far of every process in the process groups `pgids` (a broker's), from /proc. */
export function groupsCpuMs(pgids: number[]): number {
  const groups = new Set(pgids);
  let ms = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid pgrp …: read after the last ')', since comm may hold spaces and parentheses.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (groups.has(Number(fields[2]))) ms += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // gone meanwhile
    }
  }
  return ms;
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
