// Roles: what they may do and which boards they see. Every write names the workspace, locks its row
// (administrators.ts), writes its audit entry and announces the role's invalidation in one
// transaction, so every cached key and session acting with the role drops it when the change commits.
import { prisma } from '../db/db.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { announceInvalidation } from '../access/invalidation.ts';
import type { AuditWrite } from '../audit/audit.writer.ts';
import { assertAnotherAdministrator, lockWorkspace } from './administrators.ts';

type RoleQuery = Pick<Prisma.RoleFindManyArgs, 'include' | 'select'>;

export type RoleFields = {
  name: string;
  isAdmin: boolean;
  permissions: string[];
  allBoards: boolean;
  boardIds: string[];
};

const withBoards = { boards: { select: { boardId: true }, orderBy: { boardId: 'asc' } } } as const satisfies Prisma.RoleInclude;
export type RoleRow = Prisma.RoleGetPayload<{ include: typeof withBoards }>;

/** The audited view of a role: its fields with the board ids as a sorted list. */
export const roleRecord = (r: RoleRow): RoleFields => ({ name: r.name, isAdmin: r.isAdmin, permissions: r.permissions, allBoards: r.allBoards, boardIds: r.boards.map((b) => b.boardId) });

export const roleRepository = {
  list(workspaceId: number, query: RoleQuery) {
    return prisma.role.findMany({ ...query, where: { workspaceId }, orderBy: { id: 'asc' } });
  },

  /** With their boards and how many accounts (people and keys) act with each, for the operator's list. */
  listWithCounts(workspaceId: number) {
    return prisma.role.findMany({ where: { workspaceId }, include: { ...withBoards, _count: { select: { users: true } } }, orderBy: { id: 'asc' } });
  },

  /** The ids among `ids` that are boards of the workspace. */
  async existingBoardIds(workspaceId: number, ids: string[]): Promise<Set<string>> {
    const rows = await prisma.board.findMany({ where: { workspaceId, id: { in: ids } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  },

  /** The new role; or why not: the workspace has `max` roles already, or one with this name. */
  create(workspaceId: number, fields: RoleFields, max: number, audit: AuditWrite<RoleRow>): Promise<RoleRow | 'limit' | 'name_taken'> {
    return prisma.$transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      if ((await tx.role.count({ where: { workspaceId } })) >= max) return 'limit';
      if (await tx.role.findFirst({ where: { workspaceId, name: fields.name }, select: { id: true } })) return 'name_taken';
      const created = await tx.role.create({
        data: {
          workspaceId,
          name: fields.name,
          isAdmin: fields.isAdmin,
          permissions: fields.permissions,
          allBoards: fields.allBoards,
          boards: { create: fields.boardIds.map((boardId) => ({ boardId })) },
        },
        include: withBoards,
      });
      await audit(tx, created);
      return created;
    });
  },

  /**
   * Changes a custom role. Its people's `isAdmin` (who gets operational notices) follows the role's.
   * Refuses (last_administrator) to take admin from a role whose people are the last administrators.
   */
  update(workspaceId: number, id: number, change: Partial<RoleFields>, audit: AuditWrite<{ before: RoleRow; after: RoleRow }>): Promise<RoleRow | 'not_found' | 'built_in' | 'name_taken'> {
    return prisma.$transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      const before = await tx.role.findFirst({ where: { id, workspaceId }, include: withBoards });
      if (!before) return 'not_found';
      if (before.builtIn) return 'built_in';
      if (change.name !== undefined && change.name !== before.name && (await tx.role.findFirst({ where: { workspaceId, name: change.name }, select: { id: true } }))) return 'name_taken';
      if (before.isAdmin && change.isAdmin === false) await assertAnotherAdministrator(tx, workspaceId, { roleId: id });
      const after = await tx.role.update({
        where: { id },
        data: {
          name: change.name,
          isAdmin: change.isAdmin,
          permissions: change.permissions,
          allBoards: change.allBoards,
          ...(change.boardIds === undefined ? {} : { boards: { deleteMany: {}, create: change.boardIds.map((boardId) => ({ boardId })) } }),
        },
        include: withBoards,
      });
      if (after.isAdmin !== before.isAdmin) await tx.user.updateMany({ where: { roleId: id, kind: 'human' }, data: { isAdmin: after.isAdmin } });
      await announceInvalidation(tx, { kind: 'role', id });
      await audit(tx, { before, after });
      return after;
    });
  },
};
