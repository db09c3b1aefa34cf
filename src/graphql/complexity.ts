// What a field costs, for the cost limit of limits.ts (Pothos' complexity plugin, measured with the
// request's variables, so a page size given as `first: $n` counts as much as a literal one). A
// field costs 1 and a plain list (a board's fields, a ticket's field values) counts its selection
// 10 times (Pothos' defaults); a page is priced here.
import type { FieldComplexityValue } from '@pothos/plugin-complexity';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../paging/paging.ts';

/** A row of a page is read whole (the shared representation), however little is selected of it. */
const ROW_COST = 1000;

/** The rows a page may hold: every connection answers at most MAX_PAGE_SIZE (larger sizes are refused or cut). */
function pageSize(args: { first?: number | null; last?: number | null }): number {
  const asked = Math.max(args.first ?? 0, args.last ?? 0);
  return Math.min(asked > 0 ? asked : DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
}

/** Every connection (relay's `defaultConnectionFieldOptions`): its rows, and its selection once per row. */
export function connectionComplexity(args: { first?: number | null; last?: number | null }): FieldComplexityValue {
  const rows = pageSize(args);
  return { field: rows * ROW_COST, multiplier: rows };
}

/** `edges` of a connection: the connection's row count already multiplies it. */
export const EDGES_COMPLEXITY = { field: 1, multiplier: 1 } satisfies FieldComplexityValue;

const DAY_MS = 24 * 60 * 60 * 1000;
/** A day of ticketActivityReport's window: it reads every history entry of the window, so it is
 * priced by the window's length. A year (366 days, 109,800) fits the cost limit; longer windows
 * (the whole history) are refused, to be asked for a year at a time. */
export const REPORT_DAY_COST = 300;

const asTime = (v: unknown) => (v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : Number.NaN);
const inRange = (t: number) => {
  const year = new Date(t).getUTCFullYear();
  return year >= 1 && year <= 9999;
};

/** ticketActivityReport(from, to): its days, each REPORT_DAY_COST. A window the resolver refuses
 * (empty, backwards, years outside 1–9999) costs one day, so that its refusal names the argument. */
export function activityReportComplexity(args: { from?: unknown; to?: unknown }): FieldComplexityValue {
  const from = asTime(args.from);
  const to = asTime(args.to);
  if (!Number.isFinite(from) || !Number.isFinite(to) || !(from < to) || !inRange(from) || !inRange(to)) return { field: REPORT_DAY_COST, multiplier: 1 };
  return { field: Math.ceil((to - from) / DAY_MS) * REPORT_DAY_COST, multiplier: 1 };
}
