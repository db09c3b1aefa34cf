import { prisma } from '../db/db.ts';
import type { Prisma } from '../generated/prisma/client.ts';

type UserQuery = Pick<Prisma.UserFindManyArgs, 'include' | 'select' | 'cursor' | 'take' | 'skip'>;
type RoleQuery = Pick<Prisma.RoleFindManyArgs, 'include' | 'select'>;

export const userRepository = {
  /** People and service accounts of the workspace, in the order they were created. */
  list(workspaceId: number, query: UserQuery) {
    return prisma.user.findMany({ ...query, where: { workspaceId }, orderBy: { id: 'asc' } });
  },

  find(workspaceId: number, id: number, query: Pick<UserQuery, 'include' | 'select'>) {
    return prisma.user.findFirst({ ...query, where: { id, workspaceId } });
  },

  listRoles(workspaceId: number, query: RoleQuery) {
    return prisma.role.findMany({ ...query, where: { workspaceId }, orderBy: { id: 'asc' } });
  },
};
