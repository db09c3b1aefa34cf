// Reading the people of a workspace, the service accounts of its API keys, and its roles.
import { AppError } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { checkCursor } from '../paging/cursor.ts';
import { userRepository } from './user.repository.ts';

type ListQuery = Parameters<typeof userRepository.list>[1];

export const userService = {
  list(principal: Principal, query: ListQuery) {
    return userRepository.list(principal.workspace.id, checkCursor(query, 'int'));
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
