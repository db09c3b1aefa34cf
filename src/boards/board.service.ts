// Reading boards: the role decides which boards exist for the caller; any other board is "not
// found", never "forbidden".
import { AppError } from '../errors/errors.ts';
import { canSeeBoard, type Principal } from '../auth/principal.ts';
import { checkCursor } from '../graphql/cursor.ts';
import { boardRepository } from './board.repository.ts';

type ListQuery = Parameters<typeof boardRepository.listVisible>[2];
type GetQuery = Parameters<typeof boardRepository.find>[2];

export const boardService = {
  list(principal: Principal, query: ListQuery) {
    return boardRepository.listVisible(principal.workspace.id, principal.role, checkCursor(query, 'string'));
  },

  async get(principal: Principal, id: string, query: GetQuery) {
    const board = canSeeBoard(principal.role, id) ? await boardRepository.find(principal.workspace.id, id, query) : null;
    if (!board) throw new AppError('not_found', `No board ${id}`);
    return board;
  },
};
