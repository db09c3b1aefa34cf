// Reading boards: the role decides which boards exist for the caller; any other board is "not
// found", never "forbidden".
import { AppError } from '../errors/errors.ts';
import { canSeeBoard, type Principal } from '../access/principal.ts';
import { pageByKey, type ConnectionArgs } from '../paging/page-by-key.ts';
import { stringId } from '../paging/page-keys.ts';
import { boardRepository, type BoardWithRules } from './board.repository.ts';
import { onResetForTests } from '../reset-for-tests.ts';

/** Board ids: `brd_` and a ULID. */
const boardIds = stringId(/^brd_[0-9A-Z]{26}$/);

/**
 * Board definitions (fields, states, priorities) change rarely and are read by every ticket
 * write, so they are trusted for a few seconds from an in-process cache, as API keys are: a
 * change made elsewhere reaches this instance within RULES_TTL_MS. Unknown boards are not
 * cached, so a new board is usable at once.
 */
const RULES_TTL_MS = 10_000;
const RULES_CACHE_MAX = 1_000;
const rulesCache = new Map<string, { rules: Promise<BoardWithRules | null>; until: number }>();
// A test file's fresh database (src/reset-for-tests.ts).
onResetForTests(() => rulesCache.clear());

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
