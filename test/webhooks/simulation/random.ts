// The simulation's one source of choices, made from its seed. Counter-based: a draw is
// sha256(seed, name, counter), so each named stream (the schedule, a receiver's answers to one
// delivery, the interleaving point of one subscription) gives the same sequence whatever order the
// real actors (the worker, the relay, the receiver) reach their draws in. That is what lets a
// seed replay: every choice is a function of the seed and of what is being decided, never of
// which actor happened to ask first.
import crypto from 'node:crypto';

export interface Choices {
  /** Uniform in [0, 1). */
  next(): number;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A key of `weights`, each as likely as its weight. */
  weighted<K extends string>(weights: Record<K, number>): K;
}

function choicesFrom(next: () => number): Choices {
  const c: Choices = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    weighted(weights) {
      const entries = Object.entries(weights) as [keyof typeof weights & string, number][];
      let r = next() * entries.reduce((sum, [, w]) => sum + w, 0);
      for (const [k, w] of entries) if ((r -= w) < 0) return k;
      return entries.at(-1)![0];
    },
  };
  return c;
}

export interface SeededRandom {
  seed: number;
  /** A stream of draws under one name (the schedule's, say): the nth draw is always the same. */
  stream(name: string): Choices;
  /** The choices of one named decision (an answer to the 2nd request of a delivery, say). */
  at(...key: (string | number)[]): Choices;
}

export function seededRandom(seed: number): SeededRandom {
  const uniform = (key: string) => crypto.createHash('sha256').update(`${seed}\0${key}`).digest().readUIntBE(0, 6) / 2 ** 48;
  return {
    seed,
    stream(name) {
      let n = 0;
      return choicesFrom(() => uniform(`${name}\0${n++}`));
    },
    at(...key) {
      let n = 0;
      const base = key.join('\0');
      return choicesFrom(() => uniform(`${base}\0#${n++}`));
    },
  };
}
