import { prisma } from '../db/db.ts';
import { visibleBoardFilter, type RoleAccess } from '../auth/principal.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/** What a Pothos prisma field hands down: the selection of the query, and cursor paging. */
type BoardQuery = Pick<Prisma.BoardFindManyArgs, 'include' | 'select' | 'cursor' | 'take' | 'skip'>;

/** A board with what tickets are checked against: its fields and states, in board order. */
export const boardRulesInclude = {
  fields: { orderBy: { position: 'asc' } },
  states: { orderBy: { position: 'asc' } },
} as const satisfies Prisma.BoardInclude;

export type BoardWithRules = Prisma.BoardGetPayload<{ include: typeof boardRulesInclude }>;

export const boardRepository = {
  /** Boards the role sees, oldest first (ids are time-sortable). */
  listVisible(workspaceId: number, role: RoleAccess, query: BoardQuery) {
    return prisma.board.findMany({ ...query, where: { workspaceId, ...visibleBoardFilter(role) }, orderBy: { id: 'asc' } });
  },

  find(workspaceId: number, id: string, query: Pick<BoardQuery, 'include' | 'select'>) {
    return prisma.board.findFirst({ ...query, where: { id, workspaceId } });
  },

  findWithRules(workspaceId: number, id: string): Promise<BoardWithRules | null> {
    return prisma.board.findFirst({ where: { id, workspaceId }, include: boardRulesInclude });
  },
};
