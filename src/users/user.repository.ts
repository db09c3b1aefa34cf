import { prisma } from '../db/db.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { KeysetPage } from '../paging/page-by-key.ts';

type UserQuery = Pick<Prisma.UserFindManyArgs, 'include' | 'select'>;
type RoleQuery = Pick<Prisma.RoleFindManyArgs, 'include' | 'select'>;

export const userRepository = {
  /** A page of the workspace's people and service accounts. */
  list(workspaceId: number, page: KeysetPage, query: UserQuery) {
    return prisma.user.findMany({ ...query, where: { AND: [{ workspaceId }, page.where] }, orderBy: page.orderBy, take: page.take });
  },

  find(workspaceId: number, id: number, query: UserQuery) {
    return prisma.user.findFirst({ ...query, where: { id, workspaceId } });
  },

  listRoles(workspaceId: number, query: RoleQuery) {
    return prisma.role.findMany({ ...query, where: { workspaceId }, orderBy: { id: 'asc' } });
  },
};
