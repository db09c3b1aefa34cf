import { prisma } from '../db/db.ts';
import type { Prisma, UserKind } from '../generated/prisma/client.ts';
import type { KeysetPage } from '../paging/page-by-key.ts';

type UserQuery = Pick<Prisma.UserFindManyArgs, 'include' | 'select'>;

export const userRepository = {
  /** A page of the workspace's people and service accounts. */
  list(workspaceId: number, kind: UserKind | null, page: KeysetPage, query: UserQuery) {
    return prisma.user.findMany({ ...query, where: { AND: [{ workspaceId, ...(kind ? { kind } : {}) }, page.where] }, orderBy: page.orderBy, take: page.take });
  },

  find(workspaceId: number, id: number, query: UserQuery) {
    return prisma.user.findFirst({ ...query, where: { id, workspaceId } });
  },
};
