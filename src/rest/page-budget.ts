// The byte budget of one page: a list page stops early, with a cursor to the rest, once its
// rows' text would pass PAGE_BYTE_BUDGET. A page of 100 KB articles or 64 KiB ticket
// descriptions would otherwise be ~10 MB of rows, then again as the GraphQL result and again
// as JSON, in a heap of ~100 MB. Rows are sized in SQL (octet_length of their large columns,
// before loading them), so a cut page never loads the rows it leaves out.

/** What a page's large text may add up to, in bytes (UTF-8 as stored). */
export const PAGE_BYTE_BUDGET = 4 * 1024 * 1024;

/** What a row adds besides its sized columns (ids, dates, names, JSON punctuation): an upper estimate. */
export const ROW_OVERHEAD_BYTES = 512;

/**
 * How many of the leading rows fit the budget, given each row's size in page order. Always at
 * least one: a row larger than the budget alone still makes a page, so paging always advances.
 */
export function rowsWithinBudget(sizes: readonly number[], budget = PAGE_BYTE_BUDGET): number {
  let total = 0;
  for (let i = 0; i < sizes.length; i++) {
    total += sizes[i]! + ROW_OVERHEAD_BYTES;
    if (total > budget) return Math.max(i, 1);
  }
  return sizes.length;
}
