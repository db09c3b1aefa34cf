// What a field costs, for the cost limit of limits.ts (Pothos' complexity plugin, measured with the
// request's variables, so a page size given as `first: $n` counts as much as a literal one). A
// field costs 1 and a plain list (a board's fields, a ticket's field values) counts its selection
// 10 times (Pothos' defaults); a page is priced here.
import type { FieldComplexityValue } from '@pothos/plugin-complexity';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../paging/paging.ts';

/** A row of a page is read whole (the shared representation), however little is selected of it. */
export const ROW_COST = 1000;

/** The rows a page may hold: every connection answers at most MAX_PAGE_SIZE (larger sizes are refused or cut). */
export function pageSize(args: { first?: number | null; last?: number | null }): number {
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
