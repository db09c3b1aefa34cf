// How a seed's outcome is printed, by the vitest file and by `npm run simulate` alike: a failing
// seed names itself, the command that replays it, each broken invariant and its step log.
import type { SeedResult } from './harness.ts';

const replayCommand = (seed: number, database: SeedResult['database']) =>
  `${database === 'postgres' ? 'DATABASE_URL=… ' : ''}SIM_SEED=${seed} npx vitest run test/webhooks/simulation   (or: npm run simulate -- --seed ${seed}${database === 'postgres' ? ' --postgres' : ''})`;

export function formatFailure(r: SeedResult): string {
  const lines = [
    `simulation seed ${r.seed} (${r.database}) broke ${r.violations.length} invariant check(s); replay: ${replayCommand(r.seed, r.database)}`,
    ...r.violations.map((v) => `  ✗ ${v.invariant}: ${v.detail}`),
    `  stats: ${JSON.stringify(r.stats)}`,
    '  step log:',
    ...r.log.map((l) => `    ${l}`),
  ];
  return lines.join('\n');
}

export const formatPass = (r: SeedResult) => `seed ${r.seed} ok in ${r.ms} ms ${JSON.stringify(r.stats)}`;
