// Draws bench/results/guard-history.md (every run of `npm run bench:guard`) as
// bench/results/guard-history.svg: one panel per figure, one mark per run from left to right, at
// the run's current ÷ base (median of rounds) with a bar over the rounds' range; the band is the
// ±10% the guard tolerates, and a flagged regression is red.
//
//   npx tsx bench/guard-plot.ts [--out bench/results/guard-history.svg]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readHistory, TOLERANCE, type HistoryRow } from './guard-figures.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: opts } = parseArgs({ options: { out: { type: 'string', default: path.join(here, 'results', 'guard-history.svg') }, history: { type: 'string', default: path.join(here, 'results', 'guard-history.md') } } });

const rows = readHistory(opts.history);
const byFigure = new Map<string, HistoryRow[]>();
for (const r of rows) byFigure.set(r.figure, [...(byFigure.get(r.figure) ?? []), r]);

const W = 420;
const H = 130;
const PAD = { left: 40, right: 10, top: 22, bottom: 18 };
const COLUMNS = 2;
/** Ratios shown between these; a mark beyond them sits on the edge. */
const LOW = 0.5;
const HIGH = 1.5;
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function panel(name: string, runs: HistoryRow[], x0: number, y0: number): string {
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v: number) => y0 + PAD.top + plotH * (1 - (Math.min(HIGH, Math.max(LOW, v)) - LOW) / (HIGH - LOW));
  const x = (i: number) => x0 + PAD.left + (runs.length === 1 ? plotW / 2 : (plotW * i) / (runs.length - 1));
  const out = [
    `<text x="${x0 + 4}" y="${y0 + 14}" font-size="11" font-weight="bold">${esc(name)}</text>`,
    `<rect x="${x0 + PAD.left}" y="${y(1 + TOLERANCE)}" width="${plotW}" height="${y(1 - TOLERANCE) - y(1 + TOLERANCE)}" fill="#eef3ee"/>`,
    `<line x1="${x0 + PAD.left}" x2="${x0 + PAD.left + plotW}" y1="${y(1)}" y2="${y(1)}" stroke="#999" stroke-dasharray="3,3"/>`,
    ...[LOW, 1, HIGH].map((v) => `<text x="${x0 + PAD.left - 4}" y="${y(v) + 4}" font-size="9" text-anchor="end">${v.toFixed(1)}</text>`),
  ];
  const points = runs.map((r, i) => `${x(i).toFixed(1)},${y(r.ratio).toFixed(1)}`);
  if (runs.length > 1) out.push(`<polyline points="${points.join(' ')}" fill="none" stroke="#4a6fa5" stroke-width="1"/>`);
  runs.forEach((r, i) => {
    const colour = r.flag === 'regression' ? '#c0392b' : '#4a6fa5';
    out.push(`<line x1="${x(i)}" x2="${x(i)}" y1="${y(r.min)}" y2="${y(r.max)}" stroke="${colour}" stroke-width="2" opacity="0.5"/>`);
    out.push(`<circle cx="${x(i)}" cy="${y(r.ratio)}" r="3" fill="${colour}"><title>${esc(`${r.date} ${r.commit} against ${r.base}: ${r.ratio} (${r.min}–${r.max}) ${r.flag}`)}</title></circle>`);
  });
  const last = runs[runs.length - 1];
  out.push(`<text x="${x0 + W - PAD.right}" y="${y0 + H - 4}" font-size="9" text-anchor="end">${runs.length} run${runs.length > 1 ? 's' : ''}; last ${esc(last.commit)} ÷ ${esc(last.base)} = ${last.ratio}</text>`);
  return out.join('\n');
}

const names = [...byFigure.keys()];
const height = Math.max(1, Math.ceil(names.length / COLUMNS)) * H + 30;
const svg = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${COLUMNS * W}" height="${height}" font-family="sans-serif">`,
  `<rect width="100%" height="100%" fill="white"/>`,
  `<text x="6" y="18" font-size="13">bench:guard history: current ÷ base per run (band: ±${TOLERANCE * 100}%; for CPU and latency lower is better)</text>`,
  ...names.map((n, i) => panel(n, byFigure.get(n)!, (i % COLUMNS) * W, 30 + Math.floor(i / COLUMNS) * H)),
  '</svg>',
].join('\n');
fs.writeFileSync(opts.out, svg + '\n');
console.error(`${names.length} figures, ${rows.length} rows: ${path.relative(process.cwd(), opts.out)}`);
