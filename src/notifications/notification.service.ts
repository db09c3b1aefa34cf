// In-app notifications. Each belongs to one account: a person, or the service account of an API
// key (which is how a key reads the notices addressed to it).
import { AppError } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { pageById, type ConnectionArgs } from '../paging/page-by-key.ts';
import { notificationRepository, type NewNotification, type NoticeTopic } from './notification.repository.ts';

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
  list(principal: Principal, unreadOnly: boolean, args: ConnectionArgs, query: Parameters<typeof notificationRepository.list>[3], topic: NoticeTopic = null) {
    return pageById(args, true, (page) => notificationRepository.list(principal.user.id, unreadOnly, page, query, readerBoards(principal), topic));
  },

  /** The caller's own unread notices (its account, its workspace, those its role may read), up to UNREAD_COUNT_CAP. */
  unreadCount(principal: Principal, topic: NoticeTopic) {
    return notificationRepository.unreadCount(principal.user.id, principal.workspace.id, readerBoards(principal), topic);
  },

  /** Marks the caller's own unread notices read (those it may read; up to `throughId`, the newest it saw, when given). */
  markAllRead(principal: Principal, topic: NoticeTopic, throughId: number | null) {
    return notificationRepository.markAllRead(principal.user.id, principal.workspace.id, readerBoards(principal), topic, throughId, new Date());
  },

  async markRead(principal: Principal, id: number, query: Parameters<typeof notificationRepository.markRead>[3]) {
    const n = await notificationRepository.markRead(principal.user.id, id, new Date(), query, readerBoards(principal));
    if (!n) throw new AppError('not_found', `No notification ${id}`);
    return n;
  },
};
