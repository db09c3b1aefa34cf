import { prisma } from '../db/db.ts';
import { visibleBoardFilter, type RoleAccess } from '../access/principal.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/** Cursor paging of the board list: an id to start from, the size (one extra row) and the direction (negative take: backwards). */
export type BoardPage = Pick<Prisma.BoardFindManyArgs, 'cursor' | 'take' | 'skip'>;

/** A board with its fields and states, in board order: what tickets are checked against and what every board answer shows. */
export const boardRulesInclude = {
  fields: { orderBy: { position: 'asc' } },
  states: { orderBy: { position: 'asc' } },
} as const satisfies Prisma.BoardInclude;

export type BoardWithRules = Prisma.BoardGetPayload<{ include: typeof boardRulesInclude }>;

export const boardRepository = {
  /** Boards the role sees, oldest first (ids are time-sortable). */
  listVisible(workspaceId: number, role: RoleAccess, page: BoardPage): Promise<BoardWithRules[]> {
    return prisma.board.findMany({ ...page, include: boardRulesInclude, where: { workspaceId, ...visibleBoardFilter(role) }, orderBy: { id: 'asc' } });
  },

  findWithRules(workspaceId: number, id: string): Promise<BoardWithRules | null> {
    return prisma.board.findFirst({ where: { id, workspaceId }, include: boardRulesInclude });
  },
};
