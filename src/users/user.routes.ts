import { z } from 'zod';
import { defineRoutes, intIdParam, pagedOperation } from '../rest/route.ts';
import { pageQuery, pageVariables } from '../paging/paging.ts';

/** The user representation of every user response. */
const USER_SELECTION = 'id userName fullName email kind roleId isAdmin createdAt';

export const userRoutes = defineRoutes([
  {
    operationId: 'listUsers',
    method: 'GET',
    path: '/users',
    tag: 'Users',
    summary: 'People and API-key service accounts of the workspace',
    description:
      'Needs the scope `users:read`. Paged: `{data, nextCursor}`, in creation order. `kind` is `human` for people and ' +
      '`service` for the service account of an API key (the account a key’s changes are attributed to).',
    operation: pagedOperation('listUsers', 'users', USER_SELECTION),
    query: pageQuery,
    variables: ({ query }) => pageVariables(query),
    paged: true,
  },
  {
    operationId: 'getUser',
    method: 'GET',
    path: '/users/{id}',
    tag: 'Users',
    summary: 'One user or service account',
    description: 'Needs the scope `users:read`.',
    operation: /* GraphQL */ `
      query getUser($id: Int!) {
        user(id: $id) { ${USER_SELECTION} }
      }`,
    params: z.object({ id: intIdParam.describe('User id') }),
    variables: ({ params }) => ({ id: params.id }),
  },
]);
