// GraphQL types of users (people and the service accounts of API keys), and the queries that
// read them (`users`, `user`).
import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../graphql/builder.ts';
import { userService } from './user.service.ts';
import { RoleSummary } from '../graphql/workspace-summaries.ts';

export const UserKindEnum = builder.enumType('UserKind', { values: ['human', 'service'] as const });

const User = builder.prismaObject('User', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    userName: t.exposeString('userName'),
    fullName: t.exposeString('fullName'),
    email: t.exposeString('email', { nullable: true }),
    kind: t.expose('kind', { type: UserKindEnum }),
    roleId: t.exposeInt('roleId'),
    isAdmin: t.exposeBoolean('isAdmin', { description: 'Whether the role is an admin role (administrators also get the operational notices)' }),
    role: t.field({
      type: RoleSummary,
      description: 'The role the account acts with',
      select: { role: { select: { id: true, name: true } } },
      resolve: (u) => u.role,
    }),
    deactivatedAt: t.expose('deactivatedAt', { type: 'DateTime', nullable: true, description: 'Set while deactivated: no sign-in, no session, and the keys the person made stop working' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

/** An account as other records name it (author, editor, actor): readable without `users:read`. */
export const UserRef = builder.prismaObject('User', {
  variant: 'UserRef',
  description: 'The account that did something: its id and display name',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('fullName'),
  }),
});

builder.queryField('users', (t) =>
  t.connection({
    type: User,
    description: 'People and API-key service accounts of the workspace, in creation order',
    authScopes: { scope: 'users:read' },
    args: { kind: t.arg({ type: UserKindEnum, required: false, description: 'Only people (`human`) or only service accounts (`service`)' }) },
    resolve: (_root, { kind, ...args }, ctx, info) => userService.list(ctx.principal!, kind ?? null, args, queryFromInfo({ context: ctx, info, path: ['edges', 'node'] })),
  }),
);

builder.queryField('user', (t) =>
  t.prismaField({
    type: 'User',
    authScopes: { scope: 'users:read' },
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, { id }, ctx) => userService.get(ctx.principal!, id, query),
  }),
);
