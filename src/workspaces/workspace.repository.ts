import { prisma } from '../db/db.ts';
import { newId } from '../ids.ts';
import type { FieldType, StateCategory } from '../generated/prisma/client.ts';
import type { AuditWrite } from '../audit/audit.writer.ts';

export interface BoardSeed {
  name: string;
  description?: string;
  priorities: string[];
  fields: { name: string; type: FieldType; required?: boolean; options?: string[] }[];
  states: { name: string; category: StateCategory; initial?: boolean }[];
}

export const workspaceRepository = {
  count: () => prisma.workspace.count(),

  list: (take: number) => prisma.workspace.findMany({ take, orderBy: { id: 'asc' } }),

  /** By id, the next `take` after `afterId`. */
  listAfter: (afterId: number, take: number) => prisma.workspace.findMany({ where: { id: { gt: afterId } }, take, orderBy: { id: 'asc' } }),

  findByDomain: (domain: string) => prisma.workspace.findUnique({ where: { domain } }),

  /** A workspace with the three standard roles and its first administrator. */
  createWithAdmin(input: { name: string; domain: string; admin: { email: string; fullName: string; passwordHash: string } }, audit?: AuditWrite<{ id: number; name: string; domain: string }>) {
    return prisma.$transaction(async (tx) => {
      const ws = await tx.workspace.create({ data: { name: input.name, domain: input.domain } });
      const admin = await tx.role.create({
        data: { workspaceId: ws.id, name: 'Administrator', isAdmin: true, allBoards: true, builtIn: true, permissions: ['tickets.write', 'kb.write', 'webhooks.manage', 'settings.manage'] },
      });
      const agent = await tx.role.create({
        data: { workspaceId: ws.id, name: 'Agent', allBoards: true, builtIn: true, permissions: ['tickets.write', 'kb.write'] },
      });
      const viewer = await tx.role.create({ data: { workspaceId: ws.id, name: 'Viewer', allBoards: true, builtIn: true, permissions: [] } });
      const user = await tx.user.create({
        data: {
          workspaceId: ws.id,
          kind: 'human',
          userName: input.admin.email.split('@')[0],
          fullName: input.admin.fullName,
          email: input.admin.email,
          roleId: admin.id,
          isAdmin: true,
          passwordHash: input.admin.passwordHash,
        },
      });
      await audit?.(tx, ws);
      return { workspace: ws, roles: { admin, agent, viewer }, admin: user };
    });
  },

  createBoard(workspaceId: number, seed: BoardSeed) {
    return prisma.board.create({
      data: {
        id: newId('brd'),
        workspaceId,
        name: seed.name,
        description: seed.description,
        priorities: seed.priorities,
        fields: {
          create: seed.fields.map((f, i) => ({ id: newId('fld'), name: f.name, type: f.type, required: f.required ?? false, options: f.options ?? [], position: i })),
        },
        states: {
          create: seed.states.map((s, i) => ({ id: newId('st'), name: s.name, category: s.category, position: i, isInitial: s.initial ?? false })),
        },
      },
      include: { fields: { orderBy: { position: 'asc' } }, states: { orderBy: { position: 'asc' } } },
    });
  },

  /** Limits a role to the listed boards. */
  restrictRole(roleId: number, boardIds: string[]) {
    return prisma.role.update({
      where: { id: roleId },
      data: { allBoards: false, boards: { deleteMany: {}, create: boardIds.map((boardId) => ({ boardId })) } },
    });
  },

  createUser(input: { workspaceId: number; email: string; fullName: string; roleId: number; isAdmin?: boolean; passwordHash: string }) {
    return prisma.user.create({
      data: {
        workspaceId: input.workspaceId,
        kind: 'human',
        userName: input.email.split('@')[0],
        fullName: input.fullName,
        email: input.email,
        roleId: input.roleId,
        isAdmin: input.isAdmin ?? false,
        passwordHash: input.passwordHash,
      },
    });
  },
};
