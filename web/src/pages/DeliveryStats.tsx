// Delivery statistics of a subscription in its Deliveries panel: the attempts of the last 24 hours,
// 7 or 30 days by outcome, the success rate, duration percentiles, and a bar chart per UTC hour or
// day (uPlot, on a canvas). The chart is a picture of the table beside it: every number it shows
// is also there as text, for screen readers and for copying.
import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ToggleButton, ToggleButtonGroup } from 'react-aria-components';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './delivery-stats.css';
import { gql } from '../api/client.ts';
import { STATS_PERIODS, WEBHOOK_DELIVERY_STATS, type DeliveryStats, type StatsPeriod } from '../api/operations.ts';
import { ErrorAlert } from '../components/ErrorAlert.tsx';

const POLL_MS = 15_000;
const CHART_HEIGHT = 220;
const COLORS = { succeeded: '#2f9e55', failed: '#b42318' };

const PERIOD_LABELS: Record<StatsPeriod, string> = { '24h': 'Last 24 hours', '7d': 'Last 7 days', '30d': 'Last 30 days' };
/** The answer's period (the schema's String: the one asked for), in words. */
const periodLabel = (period: string) => (PERIOD_LABELS[period as StatsPeriod] ?? period).toLowerCase();
const PERIOD_BUTTONS: Record<StatsPeriod, string> = { '24h': '24 hours', '7d': '7 days', '30d': '30 days' };
const hourFormat = new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const dayFormat = new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric', year: 'numeric' });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const ms = (value: number | null) => (value === null ? '—' : `${value} ms`);

const bucketLabel = (stats: Pick<DeliveryStats, 'bucket'>, start: string) =>
  `${(stats.bucket === 'hour' ? hourFormat : dayFormat).format(new Date(start))} UTC`;

export function DeliveryStatsView({ subscriptionId }: { subscriptionId: string }) {
  const [period, setPeriod] = useState<StatsPeriod>('24h');
  const stats = useQuery({
    queryKey: ['webhooks', 'stats', subscriptionId, period],
    queryFn: async () => (await gql(WEBHOOK_DELIVERY_STATS, { subscriptionId, period })).webhookDeliveryStats,
    refetchInterval: POLL_MS,
    placeholderData: (previous) => previous,
  });
  const s = stats.data;
  const unit = s?.bucket === 'day' ? 'day' : 'hour';

  return (
    <section aria-labelledby="stats-heading" className="delivery-stats">
      <h3 id="stats-heading">Statistics</h3>
      <ToggleButtonGroup
        className="segmented"
        aria-label="Period"
        selectionMode="single"
        disallowEmptySelection
        selectedKeys={[period]}
        onSelectionChange={(keys) => setPeriod([...keys][0] as StatsPeriod)}
      >
        {STATS_PERIODS.map((p) => (
          <ToggleButton key={p} id={p} className="segmented-button">
            {PERIOD_BUTTONS[p]}
          </ToggleButton>
        ))}
      </ToggleButtonGroup>
      <ErrorAlert error={stats.error} prefix="The statistics could not be loaded." />
      {stats.isPending && <p role="status">Loading statistics…</p>}
      {s && (
        <>
          <dl className="facts stats-facts" aria-label={`Attempts, ${periodLabel(s.period)}`}>
            <dt>Attempts</dt>
            <dd>{s.attempts}</dd>
            <dt>Succeeded</dt>
            <dd>{s.succeeded}</dd>
            <dt>Failed</dt>
            <dd>{s.failed}</dd>
            <dt>Success rate</dt>
            <dd>{s.successRate === null ? '—' : percent.format(s.successRate)}</dd>
            <dt>Duration p50</dt>
            <dd>{ms(s.durationMs.p50)}</dd>
            <dt>Duration p95</dt>
            <dd>{ms(s.durationMs.p95)}</dd>
            <dt>Duration p99</dt>
            <dd>{ms(s.durationMs.p99)}</dd>
          </dl>
          <p className="hint">
            Every HTTP attempt counts once (scheduled, resent or test); deliveries still waiting are not attempts. Buckets are UTC {unit}s; the
            last one is the current {unit}.
          </p>
          {s.attempts === 0 ? (
            <p>No attempts in this period.</p>
          ) : (
            <div
              role="img"
              aria-label={`Bar chart of attempts per ${unit}, ${periodLabel(s.period)}: ${s.succeeded} succeeded and ${s.failed} failed. The table below has each ${unit}.`}
            >
              <StatsChart stats={s} />
            </div>
          )}
          <details className="stats-table">
            <summary>Attempts per {unit} as a table</summary>
            <div className="table-wrap">
              <table className="responsive-table">
                <caption className="visually-hidden">Attempts per UTC {unit}</caption>
                <thead>
                  <tr>
                    <th scope="col">{unit === 'day' ? 'Day' : 'Hour'} (UTC)</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Succeeded</th>
                    <th scope="col">Failed</th>
                  </tr>
                </thead>
                <tbody>
                  {s.series.map((b) => (
                    <tr key={b.start}>
                      <th scope="row">{bucketLabel(s, b.start)}</th>
                      <td data-label="Attempts">{b.attempts}</td>
                      <td data-label="Succeeded">{b.succeeded}</td>
                      <td data-label="Failed">{b.failed}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </section>
  );
}

/** uPlot takes seconds on its time axis; each bucket's bars sit on its middle, succeeded left of failed. */
function chartData(s: DeliveryStats): uPlot.AlignedData {
  const half = (s.bucket === 'hour' ? 3600 : 86400) / 2;
  // An hour without attempts draws nothing (null), not a zero-height bar's coloured dash.
  return [s.series.map((b) => Date.parse(b.start) / 1000 + half), s.series.map((b) => b.succeeded || null), s.series.map((b) => b.failed || null)];
}

function chartOptions(s: DeliveryStats, width: number): uPlot.Options {
  const bars = (align: -1 | 1) => uPlot.paths.bars!({ size: [0.45, 24], align });
  const from = Date.parse(s.from) / 1000;
  const to = Date.parse(s.to) / 1000;
  return {
    width,
    height: CHART_HEIGHT,
    // The buckets are UTC hours or days, so the axis is UTC too.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { x: { time: true, range: () => [from, to] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    axes: [{}, { label: 'Attempts', values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) }],
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: 'Time (UTC)' },
      { label: 'Succeeded', stroke: COLORS.succeeded, fill: `${COLORS.succeeded}cc`, paths: bars(-1), points: { show: false } },
      { label: 'Failed', stroke: COLORS.failed, fill: `${COLORS.failed}cc`, paths: bars(1), points: { show: false } },
    ],
  };
}

function StatsChart({ stats }: { stats: DeliveryStats }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  // A new period changes the axis range: a new plot. New numbers for the same period: new data only.
  const shape = `${stats.period}|${stats.from}`;

  useEffect(() => {
    const el = box.current!;
    const u = new uPlot(chartOptions(stats, el.clientWidth), chartData(stats), el);
    plot.current = u;
    const resize = new ResizeObserver(() => u.setSize({ width: el.clientWidth, height: CHART_HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [shape]);

  useEffect(() => {
    plot.current?.setData(chartData(stats));
  }, [stats]);

  return <div ref={box} className="stats-chart" />;
}
