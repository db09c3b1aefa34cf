import { prisma } from '../db/db.ts';
import { newId } from '../ids.ts';
import { visibleBoardFilter, type RoleAccess } from '../access/principal.ts';
import { announceInvalidation } from '../access/invalidation.ts';
import type { FieldType, Prisma, StateCategory } from '../generated/prisma/client.ts';
import type { KeysetPage } from '../paging/page-by-key.ts';
import type { AuditWrite } from '../audit/audit.writer.ts';

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

export interface NewBoard {
  name: string;
  description: string | null;
  priorities: string[];
  fields: { name: string; type: FieldType; required: boolean; options: string[] }[];
  states: { name: string; category: StateCategory; initial: boolean }[];
}

/**
 * Administration of boards: each write checks the workspace, writes its audit entry and announces
 * the board's invalidation (its cached rules, board.service.ts) in one transaction.
 */
export const boardAdminRepository = {
  /** Every board of the workspace, oldest first (a workspace has at most `max`), for the operator's list. */
  listAll(workspaceId: number, max: number) {
    return prisma.board.findMany({ where: { workspaceId }, include: boardRulesInclude, orderBy: { id: 'asc' }, take: max });
  },

  /** The new board, or 'limit' when the workspace has `max` boards already (archived ones count). */
  create(workspaceId: number, board: NewBoard, max: number, audit: AuditWrite<BoardWithRules>): Promise<BoardWithRules | 'limit'> {
    return prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM "Workspace" WHERE id = ${workspaceId} FOR UPDATE`;
      if ((await tx.board.count({ where: { workspaceId } })) >= max) return 'limit';
      const created = await tx.board.create({
        data: {
          id: newId('brd'),
          workspaceId,
          name: board.name,
          description: board.description,
          priorities: board.priorities,
          fields: { create: board.fields.map((f, i) => ({ id: newId('fld'), ...f, position: i })) },
          states: { create: board.states.map(({ initial, ...s }, i) => ({ id: newId('st'), ...s, isInitial: initial, position: i })) },
        },
        include: boardRulesInclude,
      });
      await audit(tx, created);
      return created;
    });
  },

  /**
   * Changes the board's own members (`change`) of a board of the workspace; null when there is none.
   * With `onlyWhen`, only a board archived (or not) as it says changes: the others are answered as they are.
   */
  update(
    workspaceId: number,
    id: string,
    change: Prisma.BoardUpdateInput,
    onlyWhen: { archived: boolean } | undefined,
    audit: AuditWrite<{ before: BoardWithRules; after: BoardWithRules }>,
  ): Promise<BoardWithRules | null> {
    return prisma.$transaction(async (tx) => {
      // FOR UPDATE: two archive requests at once change (and record) the board once.
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Board" WHERE id = ${id} AND "workspaceId" = ${workspaceId} FOR UPDATE`;
      if (!locked.length) return null;
      const before = await tx.board.findUniqueOrThrow({ where: { id }, include: boardRulesInclude });
      if (onlyWhen && (before.archivedAt !== null) !== onlyWhen.archived) return before;
      const after = await tx.board.update({ where: { id }, data: change, include: boardRulesInclude });
      await announceInvalidation(tx, { kind: 'board', id });
      await audit(tx, { before, after });
      return after;
    });
  },
};
