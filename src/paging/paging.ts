// Cursor paging of every list: ?limit= (default 50, max 100) and ?cursor=; the body is
// {data, nextCursor} and a Link: <…>; rel="next" header points at the next page.
import { z } from 'zod';
import { decimalInteger } from '../validation/text.ts';
import { SIGNED_CURSOR } from './cursor.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** Query parameters every paged route accepts; extend with the route's own filters. */
export const pageQuery = z.object({
  limit: decimalInteger({ min: 1, max: MAX_PAGE_SIZE, description: `Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}), in decimal digits` })
    .default(DEFAULT_PAGE_SIZE),
  // Opaque and signed (src/paging/cursor.ts): one this list did not issue is a 422.
  cursor: z
    .string()
    .min(1)
    .max(512)
    .regex(SIGNED_CURSOR, 'is not a cursor of this list')
    .optional()
    .describe('The `nextCursor` of the previous page, as it was given'),
});

/** The relay variables of a paged route (`first`, `after`). */
export const pageVariables = (q: Record<string, unknown>) => ({ first: q.limit ?? DEFAULT_PAGE_SIZE, after: q.cursor ?? null });

interface Connection {
  edges: { node: unknown }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** Selection every paged operation must include on its connection. */
export const PAGE_INFO_SELECTION = 'pageInfo { hasNextPage endCursor }';

export function toPage(connection: Connection, requestUrl: string): { body: { data: unknown[]; nextCursor: string | null }; headers: Record<string, string> } {
  const nextCursor = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
  const headers: Record<string, string> = {};
  if (nextCursor) {
    const next = new URL(requestUrl);
    next.searchParams.set('cursor', nextCursor);
    headers.Link = `<${next.pathname}${next.search}>; rel="next"`;
  }
  return { body: { data: connection.edges.map((e) => e.node), nextCursor }, headers };
}
