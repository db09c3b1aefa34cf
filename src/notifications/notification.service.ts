// In-app notifications. Each belongs to one account: a person, or the service account of an API
// key (which is how a key reads the notices addressed to it).
import { AppError } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { checkCursor } from '../paging/cursor.ts';
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

  list(principal: Principal, unreadOnly: boolean, query: Parameters<typeof notificationRepository.list>[2]) {
    return notificationRepository.list(principal.user.id, unreadOnly, checkCursor(query, 'int'), readerBoards(principal));
  },

  async markRead(principal: Principal, id: number, query: Parameters<typeof notificationRepository.markRead>[3]) {
    const n = await notificationRepository.markRead(principal.user.id, id, new Date(), query, readerBoards(principal));
    if (!n) throw new AppError('not_found', `No notification ${id}`);
    return n;
  },
};
