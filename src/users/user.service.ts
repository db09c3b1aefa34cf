// Reading the people of a workspace and the service accounts of its API keys.
import { AppError } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { pageById, type ConnectionArgs } from '../paging/page-by-key.ts';
import { userRepository } from './user.repository.ts';
import type { UserKind } from '../generated/prisma/client.ts';

type Selection = Parameters<typeof userRepository.list>[3];

export const userService = {
  /** In creation order (by id). */
  list(principal: Principal, kind: UserKind | null, args: ConnectionArgs, query: Selection) {
    return pageById(args, false, (page) => userRepository.list(principal.workspace.id, kind, page, query));
  },

  async get(principal: Principal, id: number, query: Parameters<typeof userRepository.find>[2]) {
    const user = await userRepository.find(principal.workspace.id, id, query);
    if (!user) throw new AppError('not_found', `No user ${id}`);
    return user;
  },
};
