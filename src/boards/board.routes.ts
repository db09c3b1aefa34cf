import { z } from 'zod';
import { defineRoutes, pagedOperation } from '../rest/route.ts';
import { pageQuery, pageVariables } from '../paging/paging.ts';
import { createBoardInput, updateBoardInput } from './board-admin.service.ts';

const WRITE_NOTE = 'Needs the scope `boards:write` and a key whose role is admin (403 `forbidden` otherwise).';
const boardIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).describe('Board id, e.g. `brd_01J…`') });
const archiveAction = (operationId: string, field: string, path: string, summary: string, description: string) => ({
  operationId,
  method: 'POST' as const,
  path,
  tag: 'Boards',
  summary,
  description: `${WRITE_NOTE} ${description}`,
  operation: /* GraphQL */ `
      mutation ${operationId}($id: String!) {
        ${field}(id: $id) { ${BOARD_SELECTION} }
      }`,
  params: boardIdParams,
  variables: ({ params }: { params: Record<string, unknown> }) => ({ id: params.id }),
});

/** The board representation of every board response (docs/api-contract.md, "Resources"). */
const BOARD_SELECTION = 'id name fields { id name type required options } states { id name category } priorities archivedAt';

const READ_SCOPES_NOTE = 'Needs the scope `boards:read`, `tickets:read` or `tickets:write`.';

export const boardRoutes = defineRoutes([
  {
    operationId: 'listBoards',
    method: 'GET',
    path: '/boards',
    tag: 'Boards',
    summary: 'The boards the key’s role sees, with their fields and states',
    description:
      `${READ_SCOPES_NOTE} Paged like every list: \`{data, nextCursor}\`, oldest board first. ` +
      'Each board carries its custom fields (ids to use in ticket `fields[].fieldId`), its states and its allowed priorities. ' +
      'Boards the role does not see are absent.',
    operation: pagedOperation('listBoards', 'boards', BOARD_SELECTION),
    query: pageQuery,
    variables: ({ query }) => pageVariables(query),
    paged: true,
  },
  {
    operationId: 'getBoard',
    method: 'GET',
    path: '/boards/{id}',
    tag: 'Boards',
    summary: 'One board with its fields (ids) and states',
    description: `${READ_SCOPES_NOTE} A board the key’s role does not see answers 404.`,
    operation: /* GraphQL */ `
      query getBoard($id: String!) {
        board(id: $id) { ${BOARD_SELECTION} }
      }`,
    params: boardIdParams,
    variables: ({ params }) => ({ id: params.id }),
  },
  {
    operationId: 'createBoard',
    method: 'POST',
    path: '/boards',
    tag: 'Boards',
    summary: 'Create a board with its priorities, custom fields and states',
    description:
      `${WRITE_NOTE} Names of fields, of states and of priorities are unique on the board (whatever their case); a \`select\` or \`multiselect\` field needs \`options\`, ` +
      'other types take none; at most one state is `initial` (none: the first). A workspace has at most 200 boards, archived ones included. ' +
      'The answer is the board with the ids of its fields and states.',
    operation: /* GraphQL */ `
      mutation createBoard($input: CreateBoardInput!) {
        createBoard(input: $input) { ${BOARD_SELECTION} }
      }`,
    body: createBoardInput,
    variables: ({ body }) => ({ input: body }),
    status: 201,
  },
  {
    operationId: 'updateBoard',
    method: 'PATCH',
    path: '/boards/{id}',
    tag: 'Boards',
    summary: 'Rename a board or change its description',
    description: `${WRITE_NOTE} Only the members sent change; \`description: null\` clears it.`,
    operation: /* GraphQL */ `
      mutation updateBoard($id: String!, $input: UpdateBoardInput!) {
        updateBoard(id: $id, input: $input) { ${BOARD_SELECTION} }
      }`,
    params: boardIdParams,
    body: updateBoardInput,
    variables: ({ params, body }) => ({ id: params.id, input: body }),
  },
  archiveAction(
    'archiveBoard',
    'archiveBoard',
    '/boards/{id}/archive',
    'Archive a board: its tickets stay, it takes no new ones',
    'Its tickets stay readable and changeable, and the board stays valid in webhook subscriptions’ and roles’ board lists; `POST /tickets` to it answers 422 at `/boardId`. Archiving an archived board changes nothing.',
  ),
  archiveAction('unarchiveBoard', 'unarchiveBoard', '/boards/{id}/unarchive', 'Open an archived board again', 'It takes new tickets again. Unarchiving an open board changes nothing.'),
]);
