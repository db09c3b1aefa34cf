// How `npm start` runs node for each part (scripts/start.sh): its environment and flags, read
// from the script so the benchmarks run exactly what production runs.
import fs from 'node:fs';
import { fromRoot } from '../src/paths.ts';

export type Role = 'all' | 'api' | 'worker';

export interface ProductionNode {
  env: Record<string, string>;
  flags: string[];
}

/** The heap limit (MB) of each part, from the `case` of scripts/start.sh. */
export function heapLimits(script = fs.readFileSync(fromRoot('scripts', 'start.sh'), 'utf8')): Record<Role, number> {
  const limit = (role: Role) => {
    const found = new RegExp(`^\\s*${role}\\) heap=(\\d+) ;;`, 'm').exec(script);
    if (!found) throw new Error(`scripts/start.sh names no heap limit for ${role}`);
    return Number(found[1]);
  };
  return { all: limit('all'), api: limit('api'), worker: limit('worker') };
}

export function productionNode(role: Role): ProductionNode {
  const script = fs.readFileSync(fromRoot('scripts', 'start.sh'), 'utf8');
  const found = /^((?:[A-Z_]+=\S+ )*)exec node((?: --\S+)*) dist\/main\.js/m.exec(script);
  if (!found) throw new Error('cannot find "[VAR=value …] exec node [flags] dist/main.js" in scripts/start.sh');
  const env = Object.fromEntries(found[1].trim().split(/\s+/).filter(Boolean).map((a) => a.split('=', 2) as [string, string]));
  const flags = found[2].trim().split(/\s+/).filter(Boolean).map((f) => f.replace('$heap', String(heapLimits(script)[role])));
  return { env, flags };
}
