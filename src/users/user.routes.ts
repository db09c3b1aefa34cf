import { z } from 'zod';
import { defineRoutes, intIdParam, pagedOperation } from '../rest/route.ts';
import { pageQuery, pageVariables } from '../paging/paging.ts';
import { changeRoleInput } from './people.service.ts';
import { inviteInput } from './invitation.service.ts';

/** The user representation of every user response. */
const USER_SELECTION = 'id userName fullName email kind roleId isAdmin deactivatedAt createdAt';
const INVITATION_SELECTION = 'id email roleId expiresAt createdAt';
const WRITE_NOTE =
  'Needs the scope `users:write` and a key whose role is admin; a key never acts on a person whose role is admin, nor gives an admin role (403 `forbidden`), ' +
  'so no key can lock the administrators out or raise anyone to their rights.';
const TAG = 'Users';
const userIdParams = z.object({ id: intIdParam.describe('User id') });
const activation = (operationId: 'deactivateUser' | 'reactivateUser', path: string, summary: string, description: string) => ({
  operationId,
  method: 'POST' as const,
  path,
  tag: TAG,
  summary,
  description: `${WRITE_NOTE} ${description}`,
  operation: /* GraphQL */ `
      mutation ${operationId}($id: Int!) {
        ${operationId}(id: $id) { ${USER_SELECTION} }
      }`,
  params: userIdParams,
  variables: ({ params }: { params: Record<string, unknown> }) => ({ id: params.id }),
});

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
    operation: pagedOperation('listUsers', 'users', USER_SELECTION, { kind: '$kind: UserKind' }),
    query: pageQuery.extend({ kind: z.enum(['human', 'service']).optional().describe('Only people (`human`) or only service accounts (`service`)') }),
    variables: ({ query }) => ({ ...pageVariables(query), kind: query.kind ?? null }),
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
    params: userIdParams,
    variables: ({ params }) => ({ id: params.id }),
  },
  {
    operationId: 'changeUserRole',
    method: 'PATCH',
    path: '/users/{id}',
    tag: TAG,
    summary: 'Give a person another role',
    description:
      `${WRITE_NOTE} In force from the person's next request: their sessions see the role's boards and permissions at once. ` +
      'Service accounts keep the role their key was made with (404: only people are changed here).',
    operation: /* GraphQL */ `
      mutation changeUserRole($id: Int!, $input: ChangeUserRoleInput!) {
        changeUserRole(id: $id, input: $input) { ${USER_SELECTION} }
      }`,
    params: userIdParams,
    body: changeRoleInput,
    variables: ({ params, body }) => ({ id: params.id, input: body }),
  },
  activation('deactivateUser', '/users/{id}/deactivate', 'Deactivate a person', 'Their sessions end and the API keys they made stop working, at once on every instance. Deactivating a deactivated person changes nothing.'),
  activation('reactivateUser', '/users/{id}/reactivate', 'Reactivate a person', 'They can sign in again, and the keys they made (unless revoked or expired) work again.'),
  {
    operationId: 'inviteUser',
    method: 'POST',
    path: '/invitations',
    tag: TAG,
    summary: 'Invite a person by e-mail',
    description:
      `${WRITE_NOTE} The service e-mails a one-time link (valid 7 days, usable once) with which the person chooses a name and password; ` +
      'the link itself is never in an API answer. Inviting a pending address again replaces its link; an address with an account in the workspace is refused (422). ' +
      'At most 100 invitations are pending per workspace.',
    operation: /* GraphQL */ `
      mutation inviteUser($input: InviteUserInput!) {
        inviteUser(input: $input) { invitation { ${INVITATION_SELECTION} } emailed }
      }`,
    body: inviteInput,
    variables: ({ body }) => ({ input: body }),
    status: 201,
  },
  {
    operationId: 'revokeInvitation',
    method: 'DELETE',
    path: '/invitations/{id}',
    tag: TAG,
    summary: 'Revoke a pending invitation',
    description: `${WRITE_NOTE} Its link stops working. Answers the invitation revoked.`,
    operation: /* GraphQL */ `
      mutation revokeInvitation($id: String!) {
        revokeInvitation(id: $id) { ${INVITATION_SELECTION} }
      }`,
    params: z.object({ id: z.string().regex(/^inv_[0-9A-Z]{26}$/).describe('Invitation id (`inv_…`)') }),
    variables: ({ params }) => ({ id: params.id }),
  },
]);
