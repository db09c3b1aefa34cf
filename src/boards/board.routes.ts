import { z } from 'zod';
import { defineRoutes, pagedOperation } from '../rest/route.ts';
import { pageQuery, pageVariables } from '../paging/paging.ts';

/** The board representation of every board response (docs/api-contract.md, "Resources"). */
const BOARD_SELECTION = 'id name fields { id name type required options } states { id name category } priorities';

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
    params: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).describe('Board id, e.g. `brd_01J…`') }),
    variables: ({ params }) => ({ id: params.id }),
  },
]);
