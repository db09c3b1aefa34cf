/** The p-th percentile (nearest rank) of ascending `sorted`; NaN when it is empty. */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** p50 and p95 (rounded ms) where each of `missing` counts as infinitely late: null (n/a) when a percentile falls on one. */
export interface Pcts {
  n: number;
  missing: number;
  p50: number | null;
  p95: number | null;
}

export function pctsWithMissing(values: number[], missing: number): Pcts {
  const xs = [...values, ...Array.from({ length: missing }, () => Infinity)].sort((a, b) => a - b);
  const p = (q: number) => {
    const v = percentile(xs, q);
    return Number.isFinite(v) ? Math.round(v) : null;
  };
  return { n: values.length, missing, p50: p(50), p95: p(95) };
}
