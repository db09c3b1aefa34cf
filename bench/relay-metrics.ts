// The outbox relay's own histograms (src/metrics/metrics.ts), read from the service's /metrics
// twice and subtracted: what the relay did within a phase of a benchmark. Each histogram's
// count, mean and the upper bound of the bucket that holds its 95th percentile (Prometheus'
// buckets give no finer p95).

/** Cumulative bucket counts and sum per series (`name{labels}`), from Prometheus' text format. */
export interface Scrape {
  buckets: Map<string, Map<number, number>>;
  sums: Map<string, number>;
}

const HISTOGRAMS = ['outbox_relay_step_duration_seconds', 'outbox_relay_pickup_delay_seconds'];

export async function scrapeRelay(origin: string): Promise<Scrape | undefined> {
  const res = await fetch(`${origin}/metrics`).catch(() => undefined);
  if (!res?.ok) return undefined;
  const scrape: Scrape = { buckets: new Map(), sums: new Map() };
  for (const line of (await res.text()).split('\n')) {
    const m = /^(\w+)_(bucket|sum)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || !HISTOGRAMS.includes(m[1]!)) continue;
    const labels = (m[3] ?? '').split(',').filter((l) => l && !l.startsWith('le='));
    const series = `${m[1]}${labels.length ? `{${labels.join(',')}}` : ''}`;
    if (m[2] === 'sum') scrape.sums.set(series, Number(m[4]));
    else {
      const le = /le="([^"]+)"/.exec(m[3] ?? '')?.[1];
      const map = scrape.buckets.get(series) ?? new Map<number, number>();
      map.set(le === '+Inf' ? Infinity : Number(le), Number(m[4]));
      scrape.buckets.set(series, map);
    }
  }
  return scrape;
}

export interface SeriesSummary {
  series: string;
  count: number;
  meanMs: number;
  /** The bucket bound (ms) at or under which 95% fell; Infinity beyond the last bucket. */
  p95AtMostMs: number;
}

/** Per series: what happened between `before` and `after`. */
export function relayBetween(before: Scrape | undefined, after: Scrape | undefined): SeriesSummary[] {
  if (!after) return [];
  const out: SeriesSummary[] = [];
  for (const [series, buckets] of after.buckets) {
    const earlier = before?.buckets.get(series);
    const bounds = [...buckets.keys()].sort((a, b) => a - b);
    const counts = bounds.map((b) => buckets.get(b)! - (earlier?.get(b) ?? 0));
    const count = counts.at(-1) ?? 0;
    if (count <= 0) continue;
    const sum = after.sums.get(series)! - (before?.sums.get(series) ?? 0);
    const at = bounds[counts.findIndex((c) => c >= 0.95 * count)] ?? Infinity;
    out.push({ series, count, meanMs: Math.round((1000 * sum) / count), p95AtMostMs: at * 1000 });
  }
  return out.sort((a, b) => a.series.localeCompare(b.series));
}

/** Table rows: series | count | mean ms | p95 ≤ ms. */
export function relayRows(summaries: SeriesSummary[]): string[] {
  return summaries.map((s) => `| \`${s.series}\` | ${s.count.toLocaleString('en-US')} | ${s.meanMs.toLocaleString('en-US')} | ${Number.isFinite(s.p95AtMostMs) ? s.p95AtMostMs.toLocaleString('en-US') : 'beyond the last bucket'} |`);
}
