import type { RoleAccess } from './principal.ts';

interface RoleRow {
  id: number;
  name: string;
  isAdmin: boolean;
  allBoards: boolean;
  permissions: string[];
  boards: { boardId: string }[];
}

export const roleInclude = { boards: { select: { boardId: true } } } as const;

export function toRoleAccess(role: RoleRow): RoleAccess {
  return {
    id: role.id,
    name: role.name,
    isAdmin: role.isAdmin,
    allBoards: role.allBoards,
    boardIds: new Set(role.boards.map((b) => b.boardId)),
    permissions: new Set(role.permissions),
  };
}
