// Reading the people of a workspace, the service accounts of its API keys, and its roles.
import { AppError } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { pageById, type ConnectionArgs } from '../paging/page-by-key.ts';
import { userRepository } from './user.repository.ts';

type Selection = Parameters<typeof userRepository.list>[2];

export const userService = {
  /** In creation order (by id). */
  list(principal: Principal, args: ConnectionArgs, query: Selection) {
    return pageById(args, false, (page) => userRepository.list(principal.workspace.id, page, query));
  },

  async get(principal: Principal, id: number, query: Parameters<typeof userRepository.find>[2]) {
    const user = await userRepository.find(principal.workspace.id, id, query);
    if (!user) throw new AppError('not_found', `No user ${id}`);
    return user;
  },

  roles(principal: Principal, query: Parameters<typeof userRepository.listRoles>[1]) {
    return userRepository.listRoles(principal.workspace.id, query);
  },
};
