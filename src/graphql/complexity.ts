// What a field costs, for the cost limit of limits.ts. Pothos' complexity plugin calls this for
// every field without a cost of its own, with the field's arguments after variables, so a page
// size given as `first: $n` counts as much as a literal one.
import { getNullableType, isListType, type GraphQLField } from 'graphql';
import type { FieldComplexityValue } from '@pothos/plugin-complexity';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../rest/paging.ts';
import type { GraphQLContext } from './context.ts';

/** A row of a page is read whole (the shared representation), however little is selected of it. */
export const ROW_COST = 1000;
/** A plain list is a record's own short list (a board's fields, a ticket's field values). */
const LIST_LENGTH = 10;

/** The rows a page may hold: every connection answers at most MAX_PAGE_SIZE (larger sizes are refused or cut). */
export function pageSize(args: { first?: unknown; last?: unknown }): number {
  const asked = Math.max(Number(args.first ?? 0) || 0, Number(args.last ?? 0) || 0);
  return Math.min(asked || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
}

/** A connection (a field with `first`) costs its rows, and its selection counts once per row. */
export function fieldComplexity(args: Record<string, unknown>, _ctx: unknown, field: GraphQLField<unknown, GraphQLContext>): FieldComplexityValue {
  if (field.args.some((arg) => arg.name === 'first')) {
    const rows = pageSize(args);
    return { field: rows * ROW_COST, multiplier: rows };
  }
  return isListType(getNullableType(field.type)) ? { field: 1, multiplier: LIST_LENGTH } : 1;
}

/** `edges` of a connection: the connection's row count already multiplies it. */
export const EDGES_COMPLEXITY = { field: 1, multiplier: 1 } satisfies FieldComplexityValue;
