// The figures of `npm run bench:guard`: each version's value per round, the verdict on their
// ratio, and the history file that every run appends to (bench/results/guard-history.md, one
// Markdown table row per figure and run), which bench/guard-plot.ts reads back.
import fs from 'node:fs';
import { median } from './webhook-measure.ts';

export interface Figure {
  /** `<part> · <case> · <measure>`: the same name in every run, so that the history lines up. */
  name: string;
  unit: string;
  higherIsBetter: boolean;
  /** One value per round, in round order: the two versions' values of a round were measured back to back. */
  base: number[];
  current: number[];
}

/** Beyond this a worse median is flagged, if every round agrees. */
export const TOLERANCE = 0.1;

export type Flag = 'regression' | 'worse, not in every round' | 'better' | '≈';

/**
 * current ÷ base per round (each round's two loads ran back to back, so they share the machine's
 * state of the moment), their median and range. A regression: the median is more than 10% worse
 * and every round saw the current version worse, so the rounds' spread does not explain it.
 */
export function verdictOf(f: Figure): { ratio: number; min: number; max: number; flag: Flag } {
  const ratios = f.current.map((c, i) => c / f.base[i]).filter((x) => !Number.isNaN(x));
  const ratio = median(ratios);
  const min = Math.min(...ratios);
  const max = Math.max(...ratios);
  const worse = (r: number) => (f.higherIsBetter ? r < 1 : r > 1);
  const beyond = f.higherIsBetter ? ratio < 1 - TOLERANCE : ratio > 1 + TOLERANCE;
  const better = f.higherIsBetter ? ratio > 1 + TOLERANCE : ratio < 1 - TOLERANCE;
  const flag: Flag = beyond ? (ratios.every(worse) ? 'regression' : 'worse, not in every round') : better ? 'better' : '≈';
  return { ratio, min, max, flag };
}

const HISTORY_HEADER = [
  '# bench:guard history',
  '',
  'One row per figure and run of `npm run bench:guard`, appended by it (docs/contributing/benchmarks.md, "The guard").',
  '`ratio` is current ÷ base, the median over rounds; `range` the lowest and highest round; `base` and `current` the medians.',
  'For req/s and deliveries/s higher is better; for CPU and latency, lower. `bench/guard-plot.ts` draws it as guard-history.svg.',
  '',
  '| date | commit | base | figure | base value | current value | ratio | range | verdict |',
  '|---|---|---|---|--:|--:|--:|---|---|',
];

export interface HistoryRow {
  date: string;
  commit: string;
  base: string;
  figure: string;
  ratio: number;
  min: number;
  max: number;
  flag: string;
}

const num = (n: number) => (Number.isFinite(n) ? String(Number(n.toPrecision(4))) : 'n/a');

export function appendHistory(file: string, figures: Figure[], run: { date: string; commit: string; base: string }) {
  if (!fs.existsSync(file)) fs.writeFileSync(file, HISTORY_HEADER.join('\n') + '\n');
  const rows = figures.map((f) => {
    const v = verdictOf(f);
    return `| ${run.date} | ${run.commit} | ${run.base} | ${f.name} | ${num(median(f.base))} | ${num(median(f.current))} | ${num(v.ratio)} | ${num(v.min)}–${num(v.max)} | ${v.flag} |`;
  });
  fs.appendFileSync(file, rows.join('\n') + '\n');
}

export function readHistory(file: string): HistoryRow[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /^\| \d{4}-/.test(l))
    .map((l) => {
      const [date, commit, base, figure, , , ratio, range, flag] = l.split('|').slice(1, -1).map((c) => c.trim());
      const [min, max] = range.split('–').map(Number);
      return { date: date, commit: commit, base: base, figure: figure, ratio: Number(ratio), min: min, max: max, flag: flag };
    });
}
