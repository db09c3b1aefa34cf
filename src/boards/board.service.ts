// Reading boards: the role decides which boards exist for the caller; any other board is "not
// found", never "forbidden".
import { AppError } from '../errors/errors.ts';
import { canSeeBoard, type Principal } from '../access/principal.ts';
import { pageByKey, type ConnectionArgs } from '../paging/page-by-key.ts';
import { stringId } from '../paging/page-keys.ts';
import { boardRepository, type BoardWithRules } from './board.repository.ts';
import { onResetForTests } from '../reset-for-tests.ts';
import { followInvalidations } from '../access/invalidation.ts';

/** Board ids: `brd_` and a ULID. */
const boardIds = stringId(/^brd_[0-9A-Z]{26}$/);

/**
 * Board definitions (fields, states, priorities, archived) change rarely and are read by every
 * ticket write, so they are served from an in-process cache, as API keys are. A change
 * (board-admin.service.ts) is announced with the other invalidations (access/invalidation.ts)
 * and drops the board's entry on every instance when it commits; RULES_TTL_MS only covers an
 * announcement lost while a listener reconnected. Unknown boards are not cached, so a new board
 * is usable at once.
 */
const RULES_TTL_MS = 10_000;
const RULES_CACHE_MAX = 1_000;
const rulesCache = new Map<string, { rules: Promise<BoardWithRules | null>; until: number }>();
// A test file's fresh database (src/reset-for-tests.ts).
onResetForTests(() => rulesCache.clear());
followInvalidations((i) => {
  if (i === undefined) rulesCache.clear();
  else if (i.kind === 'board') for (const key of rulesCache.keys()) if (key.endsWith(`:${i.id}`)) rulesCache.delete(key);
});

export const boardService = {
  /**
   * The boards the role sees as a relay connection, oldest first. Every board answer shows the
   * same fields and states, so the rows are loaded with them and resolved as they are, with no
   * per-request query planning.
   */
  list(principal: Principal, args: ConnectionArgs) {
    const { workspace, role } = principal;
    return pageByKey(args, { key: boardIds, keyOf: (b: BoardWithRules) => b.id, newestFirst: false, load: (page) => boardRepository.listVisible(workspace.id, role, page) });
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
