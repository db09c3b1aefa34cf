// The outbox relay's own histograms and the PostgreSQL pool's waits (src/metrics/metrics.ts), read
// from the service's /metrics twice and subtracted: what they did within a phase of a benchmark. Each histogram's
// count, mean and the upper bound of the bucket that holds its 95th percentile (Prometheus'
// buckets give no finer p95).

/** Cumulative bucket counts and sum per series (`name{labels}`), from Prometheus' text format. */
export interface Scrape {
  buckets: Map<string, Map<number, number>>;
  sums: Map<string, number>;
  /** prom-client's default process figures: the event loop's delay since the last scrape (it resets at each), CPU seconds so far. */
  process: Map<string, number>;
}

const HISTOGRAMS = ['outbox_relay_step_duration_seconds', 'outbox_relay_pickup_delay_seconds', 'db_pool_connect_wait_seconds', 'http_request_duration_seconds'];
const PROCESS = ['nodejs_eventloop_lag_mean_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds', 'process_cpu_seconds_total'];

export async function scrapeMetrics(origin: string): Promise<Scrape | undefined> {
  const res = await fetch(`${origin}/metrics`).catch(() => undefined);
  if (!res?.ok) return undefined;
  const scrape: Scrape = { buckets: new Map(), sums: new Map(), process: new Map() };
  for (const line of (await res.text()).split('\n')) {
    const g = /^(\w+) (\S+)$/.exec(line);
    if (g && PROCESS.includes(g[1])) scrape.process.set(g[1], Number(g[2]));
    const m = /^(\w+)_(bucket|sum)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || !HISTOGRAMS.includes(m[1])) continue;
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
  /** Observations above 10 ms (the histograms here all have that bound). */
  over10ms: number;
}

/** Per series: what happened between `before` and `after`. */
export function histogramsBetween(before: Scrape | undefined, after: Scrape | undefined): SeriesSummary[] {
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
    const upTo10ms = counts[bounds.indexOf(0.01)] ?? NaN;
    out.push({ series, count, meanMs: Math.round((1000 * sum) / count), p95AtMostMs: at * 1000, over10ms: count - upTo10ms });
  }
  return out.sort((a, b) => a.series.localeCompare(b.series));
}

/** Table rows: series | count | mean ms | p95 ≤ ms | over 10 ms. */
export function histogramRows(summaries: SeriesSummary[]): string[] {
  return summaries.map((s) => `| \`${s.series}\` | ${s.count.toLocaleString('en-US')} | ${s.meanMs.toLocaleString('en-US')} | ${Number.isFinite(s.p95AtMostMs) ? s.p95AtMostMs.toLocaleString('en-US') : 'beyond the last bucket'} | ${Number.isFinite(s.over10ms) ? s.over10ms.toLocaleString('en-US') : 'n/a'} |`);
}

/** One process over a phase: its event loop's delay (mean, p99, max ms, from prom-client's monitor, reset by the scrape before) and the CPU it used. */
export interface ProcessSummary {
  loopMeanMs: number;
  loopP99Ms: number;
  loopMaxMs: number;
  cpuSeconds: number;
}

/** What the process did between `before` and `after` (both scrapes of it, nothing else scraping it meanwhile). */
export function processBetween(before: Scrape | undefined, after: Scrape | undefined): ProcessSummary | undefined {
  if (!before || !after) return undefined;
  const ms = (name: string) => Math.round(1000 * (after.process.get(name) ?? NaN));
  return {
    loopMeanMs: ms('nodejs_eventloop_lag_mean_seconds'),
    loopP99Ms: ms('nodejs_eventloop_lag_p99_seconds'),
    loopMaxMs: ms('nodejs_eventloop_lag_max_seconds'),
    cpuSeconds: Math.round(10 * ((after.process.get('process_cpu_seconds_total') ?? NaN) - (before.process.get('process_cpu_seconds_total') ?? NaN))) / 10,
  };
}
