// The delivery engine's simulation in `npm test`: a few dozen seeds, each its own test, on the
// run's database (PGlite, or PostgreSQL with DATABASE_URL). One time-skipping server, worker and
// receiver serve them all; each seed builds its own workspaces (harness.ts). A failing seed prints
// itself, the command that replays it and its step log. SIM_SEED=123 runs that seed alone;
// SIM_FROM and SIM_SEEDS choose another range; SIM_STEPS the schedule's length.
// (`npm run simulate` runs thousands: scripts/simulate.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSeed } from './harness.ts';
import { formatFailure } from './report.ts';
import { startSimulationStack, type SimulationStack } from './stack.ts';

const only = process.env.SIM_SEED ? [Number(process.env.SIM_SEED)] : null;
const from = Number(process.env.SIM_FROM ?? 1);
const count = Number(process.env.SIM_SEEDS ?? 24);
const seeds = only ?? Array.from({ length: count }, (_, i) => from + i);
const steps = Number(process.env.SIM_STEPS ?? 30);

describe('delivery engine simulation', () => {
  let stack: SimulationStack;
  beforeAll(async () => {
    stack = await startSimulationStack();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  for (const seed of seeds) {
    it(`seed ${seed} keeps every invariant`, { timeout: 120_000 }, async () => {
      const result = await runSeed(stack, seed, { steps });
      if (result.violations.length) console.error(formatFailure(result));
      expect(result.violations).toEqual([]);
    });
  }
});
