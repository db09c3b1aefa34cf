// Keyset paging by id for the ticket lists (tickets newest first; comments and history oldest
// first). Cursors are opaque to callers; a cursor stays valid however the list changes, so
// paging never skips or repeats a record.
import { z } from 'zod';
import { resolveCursorConnection } from '@pothos/plugin-relay';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './paging.ts';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { pageMemory, ROW_OVERHEAD_BYTES, rowsWithinBudget, type PageHold } from './page-budget.ts';

const MAX_ID = 2 ** 31 - 1;

const encodeCursor = (id: number) => Buffer.from(`id:${id}`).toString('base64url');

function decodeCursor(cursor: string): number | null {
  const m = /^id:([1-9][0-9]{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!m) return null;
  const id = Number(m[1]);
  // base64url decoding is lenient; only the canonical spelling of a cursor is one we issued.
  return id <= MAX_ID && encodeCursor(id) === cursor ? id : null;
}

const isCursor = (cursor: string) => decodeCursor(cursor) !== null;

const cursorArg = z.string().max(64).refine(isCursor, 'is not a cursor of this list').nullish();
const sizeArg = z.number().int().min(1).max(MAX_PAGE_SIZE).nullish();
const connectionArgs = z
  .object({ first: sizeArg, last: sizeArg, after: cursorArg, before: cursorArg })
  .refine((a) => a.first == null || a.last == null, { message: 'first and last cannot be combined', path: ['last'] });

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/** The Prisma paging of one page: an id range (or the ids themselves), the direction and the size (one extra row). */
export interface KeysetPage {
  where: { id?: { lt?: number; gt?: number; in?: number[] } };
  orderBy: { id: 'asc' | 'desc' };
  take: number;
}

/** A row of a page, sized: its large text in bytes (UTF-8 as stored). */
export interface SizedRow {
  id: number;
  bytes: number;
}

/**
 * A list with large rows (paging/page-budget.ts): `sizes` finds the page's ids, in page order, with
 * the list's own filters, and sizes their rows, in one SQL statement. The page is then loaded by
 * id, cut where the budget ends (it has a next page then, as when more rows follow). `hold` is the
 * request's page memory (GraphQL context `pageHold`; none outside a request).
 */
export interface PageBudget {
  sizes(page: KeysetPage): Promise<SizedRow[]>;
  hold: PageHold | undefined;
}

/** A relay connection over records ordered by id (`newestFirst`: descending). */
export async function pageById<T extends { id: number }>(args: ConnectionArgs, newestFirst: boolean, load: (page: KeysetPage) => Promise<T[]>, budget?: PageBudget) {
  const parsed = connectionArgs.safeParse(args);
  if (!parsed.success) {
    throw new AppError('validation_failed', 'The paging arguments are not valid', { errors: fromZodIssues(parsed.error.issues) });
  }
  let more: 'next' | 'previous' | undefined;
  const connection = await resolveCursorConnection<Promise<T[]>>(
    { args: parsed.data, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, toCursor: (node: T) => encodeCursor(node.id) },
    async ({ after, before, limit, inverted }) => {
      // "after" is further along the list: lower ids when newest first, higher ids otherwise.
      const id: { lt?: number; gt?: number } = {};
      const afterId = after ? decodeCursor(after)! : undefined;
      const beforeId = before ? decodeCursor(before)! : undefined;
      if (afterId !== undefined) id[newestFirst ? 'lt' : 'gt'] = afterId;
      if (beforeId !== undefined) id[newestFirst ? 'gt' : 'lt'] = beforeId;
      const descending = newestFirst !== inverted;
      const page: KeysetPage = { where: Object.keys(id).length ? { id } : {}, orderBy: { id: descending ? 'desc' : 'asc' }, take: limit };
      if (!budget) return load(page);
      // `limit` is the page size plus one row that only tells whether more follow.
      const sized = await budget.sizes(page);
      const sizes = sized.slice(0, limit - 1).map((r) => r.bytes);
      const fit = rowsWithinBudget(sizes);
      const keep = sized.slice(0, fit).map((r) => r.id);
      await pageMemory.reserve(budget.hold, sizes.slice(0, fit).reduce((sum, b) => sum + b + ROW_OVERHEAD_BYTES, 0));
      // The extra row's id already says whether more follow; its content is never needed.
      if (keep.length < sized.length) more = inverted ? 'previous' : 'next';
      return keep.length ? load({ ...page, where: { id: { ...id, in: keep } }, take: keep.length }) : [];
    },
  );
  if (more === 'next') connection.pageInfo.hasNextPage = true;
  if (more === 'previous') connection.pageInfo.hasPreviousPage = true;
  return connection;
}
