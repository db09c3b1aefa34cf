// In-app notifications. Each belongs to one account: a person, or the service account of an API
// key (which is how a key reads the notices addressed to it).
import { AppError } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { pageById, type ConnectionArgs } from '../paging/page-by-key.ts';
import { notificationRepository, type NewNotification } from './notification.repository.ts';

/** The boards whose ticket notices the caller may read; null: every board. */
function readerBoards({ role }: Principal): ReadonlySet<string> | null {
  return role.isAdmin || role.allBoards ? null : role.boardIds;
}

export const notificationService = {
  /** Sends one notice to each of the accounts (e.g. every administrator of the workspace). */
  notify(workspaceId: number, userIds: number[], notice: NewNotification) {
    return notificationRepository.createMany(workspaceId, userIds, notice);
  },

  /** Newest first (by id). */
  list(principal: Principal, unreadOnly: boolean, args: ConnectionArgs, query: Parameters<typeof notificationRepository.list>[3]) {
    return pageById(args, true, (page) => notificationRepository.list(principal.user.id, unreadOnly, page, query, readerBoards(principal)));
  },

  async markRead(principal: Principal, id: number, query: Parameters<typeof notificationRepository.markRead>[3]) {
    const n = await notificationRepository.markRead(principal.user.id, id, new Date(), query, readerBoards(principal));
    if (!n) throw new AppError('not_found', `No notification ${id}`);
    return n;
  },
};
