// The one paging of every list: keyset paging over the list's key (an int id, a string id, or a
// (time, id) pair: page-keys.ts), as a relay connection. Cursors are opaque to callers (and signed
// on the way out: cursor.ts); a cursor stays valid however the list changes, so paging never skips
// or repeats a record. Lists with large rows add a byte budget (page-budget.ts).
import { z } from 'zod';
import { resolveCursorConnection } from '@pothos/plugin-relay';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './paging.ts';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { pageMemory, ROW_OVERHEAD_BYTES, rowsWithinBudget, type PageHold } from './page-budget.ts';
import { decodeKey, encodeKey, intId, MAX_CURSOR_LENGTH, type PageKey } from './page-keys.ts';

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/**
 * One page as the list's query takes it: a key range (or the keys themselves), the direction and
 * the size (one extra row). Shaped as Prisma's `where`/`orderBy` for lists keyed by `id`; a
 * compound key's bounds are its tuples (the list's SQL compares them as rows).
 */
export interface KeysetPage<K = number> {
  where: { id?: { lt?: K; gt?: K; in?: K[] } };
  orderBy: { id: 'asc' | 'desc' };
  take: number;
}

/** A row of a page, sized: its large text in bytes (UTF-8 as stored). */
export interface SizedRow<K = number> {
  id: K;
  bytes: number;
}

/**
 * A list with large rows (paging/page-budget.ts): `sizes` finds the page's keys, in page order, with
 * the list's own filters, and sizes their rows, in one SQL statement. The page is then loaded by
 * key, cut where the budget ends (it has a next page then, as when more rows follow). `hold` is the
 * request's page memory (GraphQL context `pageHold`; none outside a request).
 */
export interface PageBudget<K = number> {
  sizes(page: KeysetPage<K>): Promise<SizedRow<K>[]>;
  hold: PageHold | undefined;
}

/** A list as the pager sees it. */
export interface KeyedList<T, K> {
  key: PageKey<K>;
  keyOf(row: T): K;
  /** Descending key order (newest first). */
  newestFirst: boolean;
  /** The rows of a page, in page order, with the list's own filters and authorisation. */
  load(page: KeysetPage<K>): Promise<T[]>;
  budget?: PageBudget<K>;
}

const sizeArg = z.number().int().min(1).max(MAX_PAGE_SIZE).nullish();
const argsSchemas = new WeakMap<object, z.ZodType<ConnectionArgs>>();

/** The argument rules of a list keyed by `key` (made once per kind of key). */
function argsSchema(key: PageKey<unknown>): z.ZodType<ConnectionArgs> {
  let schema = argsSchemas.get(key);
  if (!schema) {
    const cursorArg = z.string().max(MAX_CURSOR_LENGTH, { abort: true }).refine((c) => decodeKey(key, c) !== null, 'is not a cursor of this list').nullish();
    schema = z
      .object({ first: sizeArg, last: sizeArg, after: cursorArg, before: cursorArg })
      .refine((a) => a.first == null || a.last == null, { message: 'first and last cannot be combined', path: ['last'] });
    argsSchemas.set(key, schema);
  }
  return schema;
}

/** A relay connection of one page of `list`. */
export async function pageByKey<T, K>(args: ConnectionArgs, list: KeyedList<T, K>) {
  const parsed = argsSchema(list.key).safeParse(args);
  if (!parsed.success) {
    throw new AppError('validation_failed', 'The paging arguments are not valid', { errors: fromZodIssues(parsed.error.issues) });
  }
  const { key, newestFirst, budget } = list;
  let more: 'next' | 'previous' | undefined;
  const connection = await resolveCursorConnection<Promise<T[]>>(
    { args: parsed.data, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, toCursor: (row: T) => encodeKey(key, list.keyOf(row)) },
    async ({ after, before, limit, inverted }) => {
      // "after" is further along the list: lower keys when newest first, higher keys otherwise.
      const range: { lt?: K; gt?: K } = {};
      if (after) range[newestFirst ? 'lt' : 'gt'] = decodeKey(key, after)!;
      if (before) range[newestFirst ? 'gt' : 'lt'] = decodeKey(key, before)!;
      const descending = newestFirst !== inverted;
      const page: KeysetPage<K> = { where: after || before ? { id: range } : {}, orderBy: { id: descending ? 'desc' : 'asc' }, take: limit };
      if (!budget) return list.load(page);
      // `limit` is the page size plus one row that only tells whether more follow.
      const sized = await budget.sizes(page);
      const sizes = sized.slice(0, limit - 1).map((r) => r.bytes);
      const fit = rowsWithinBudget(sizes);
      const keep = sized.slice(0, fit).map((r) => r.id);
      await pageMemory.reserve(budget.hold, sizes.slice(0, fit).reduce((sum, b) => sum + b + ROW_OVERHEAD_BYTES, 0));
      // The extra row's key already says whether more follow; its content is never needed.
      if (keep.length < sized.length) more = inverted ? 'previous' : 'next';
      return keep.length ? list.load({ ...page, where: { id: { ...range, in: keep } }, take: keep.length }) : [];
    },
  );
  if (more === 'next') connection.pageInfo.hasNextPage = true;
  if (more === 'previous') connection.pageInfo.hasPreviousPage = true;
  return connection;
}

/** The common case: a list ordered by its int id. */
export const pageById = <T extends { id: number }>(args: ConnectionArgs, newestFirst: boolean, load: (page: KeysetPage) => Promise<T[]>, budget?: PageBudget) =>
  pageByKey(args, { key: intId, keyOf: (row) => row.id, newestFirst, load, budget });

/** The page of a short list loaded whole (e.g. a workspace's webhook subscriptions, filtered in code). */
export function pageInMemory<T, K>(rows: readonly T[], page: KeysetPage<K>, key: PageKey<K>, keyOf: (row: T) => K): T[] {
  const { lt, gt } = page.where.id ?? {};
  const sign = page.orderBy.id === 'desc' ? -1 : 1;
  return rows
    .filter((r) => {
      const k = keyOf(r);
      return (lt === undefined || key.compare(k, lt) < 0) && (gt === undefined || key.compare(k, gt) > 0);
    })
    .sort((a, b) => sign * key.compare(keyOf(a), keyOf(b)))
    .slice(0, page.take);
}
