import { prisma } from '../db/db.ts';
import { visibleBoardFilter, type RoleAccess } from '../access/principal.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { KeysetPage } from '../paging/page-by-key.ts';

/** A board with its fields and states, in board order: what tickets are checked against and what every board answer shows. */
export const boardRulesInclude = {
  fields: { orderBy: { position: 'asc' } },
  states: { orderBy: { position: 'asc' } },
} as const satisfies Prisma.BoardInclude;

export type BoardWithRules = Prisma.BoardGetPayload<{ include: typeof boardRulesInclude }>;

export const boardRepository = {
  /** A page of the boards the role sees (ids are time-sortable: ascending is oldest first). */
  listVisible(workspaceId: number, role: RoleAccess, page: KeysetPage<string>): Promise<BoardWithRules[]> {
    return prisma.board.findMany({
      include: boardRulesInclude,
      where: { AND: [{ workspaceId, ...visibleBoardFilter(role) }, page.where] },
      orderBy: page.orderBy,
      take: page.take,
    });
  },

  findWithRules(workspaceId: number, id: string): Promise<BoardWithRules | null> {
    return prisma.board.findFirst({ where: { id, workspaceId }, include: boardRulesInclude });
  },
};
