// Reading boards: the role decides which boards exist for the caller; any other board is "not
// found", never "forbidden".
import { getConnectionPageSize, PothosValidationError, validateConnectionArguments } from '@pothos/core';
import { AppError } from '../errors/errors.ts';
import { canSeeBoard, type Principal } from '../access/principal.ts';
import { checkCursor } from '../paging/cursor.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../paging/paging.ts';
import { boardRepository, type BoardPage, type BoardWithRules } from './board.repository.ts';

interface BoardConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

interface BoardEdge {
  cursor: string;
  node: BoardWithRules;
}

/**
 * The Prisma query of a page, with Pothos's connection argument rules. A board's cursor is its
 * id; the signature every cursor carries (paging/cursor.ts) is what makes it trustworthy. Every
 * board answer shows the same fields and states, so the rows are loaded with them and resolved as
 * they are, with no per-request query planning.
 */
function pageOf(args: BoardConnectionArgs): BoardPage {
  const { before, after, first, last } = args;
  validateConnectionArguments(args);
  if (before && after) throw new PothosValidationError('Arguments "before" and "after" are not supported at the same time');
  if (before != null && first != null) throw new PothosValidationError('Arguments "before" and "first" are not supported at the same time');
  if (after != null && last != null) throw new PothosValidationError('Arguments "after" and "last" are not supported at the same time');
  const cursor = before ?? after;
  const { limit } = getConnectionPageSize({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE });
  const take = before != null || last != null ? -limit : limit;
  return cursor == null ? { take, skip: 0 } : { cursor: { id: cursor }, take, skip: 1 };
}

/**
 * Board definitions (fields, states, priorities) change rarely and are read by every ticket
 * write, so they are trusted for a few seconds from an in-process cache, as API keys are: a
 * change made elsewhere reaches this instance within RULES_TTL_MS. Unknown boards are not
 * cached, so a new board is usable at once.
 */
const RULES_TTL_MS = 10_000;
const RULES_CACHE_MAX = 1_000;
const rulesCache = new Map<string, { rules: Promise<BoardWithRules | null>; until: number }>();

export const boardService = {
  /** The boards the role sees as a relay connection, oldest first. */
  async list(principal: Principal, args: BoardConnectionArgs) {
    const page = checkCursor(pageOf(args), 'string');
    const take = page.take!;
    const rows = await boardRepository.listVisible(principal.workspace.id, principal.role, page);
    const full = rows.length === Math.abs(take);
    const backward = args.before != null || args.last != null;
    const nodes = full ? rows.slice(take < 0 ? 1 : 0, take < 0 ? rows.length : -1) : rows;
    const edges: BoardEdge[] = nodes.map((node) => ({ cursor: node.id, node }));
    return {
      edges,
      pageInfo: {
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
        hasPreviousPage: args.after != null ? true : backward ? full : false,
        hasNextPage: args.before != null ? true : args.last != null ? false : full,
      },
    };
  },

  async get(principal: Principal, id: string): Promise<BoardWithRules> {
    const board = canSeeBoard(principal.role, id) ? await boardRepository.findWithRules(principal.workspace.id, id) : null;
    if (!board) throw new AppError('not_found', `No board ${id}`);
    return board;
  },

  /** The board with its fields and states, for checking tickets against it; null when it is not the workspace's. */
  async rules(workspaceId: number, boardId: string): Promise<BoardWithRules | null> {
    const key = `${workspaceId}:${boardId}`;
    const now = Date.now();
    const cached = rulesCache.get(key);
    if (cached && cached.until > now) return cached.rules;
    // Concurrent misses share one query; a failed or empty answer is not kept.
    const rules = boardRepository.findWithRules(workspaceId, boardId);
    if (rulesCache.size >= RULES_CACHE_MAX) rulesCache.delete(rulesCache.keys().next().value as string);
    rulesCache.set(key, { rules, until: now + RULES_TTL_MS });
    const forget = () => rulesCache.get(key)?.rules === rules && rulesCache.delete(key);
    const board = await rules.catch((err: unknown) => {
      forget();
      throw err;
    });
    if (!board) forget();
    return board;
  },
};
