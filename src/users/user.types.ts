// GraphQL types of users (people and the service accounts of API keys), and the queries that
// read them (`users`, `user`).
import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../graphql/builder.ts';
import { userService } from './user.service.ts';

export const UserKindEnum = builder.enumType('UserKind', { values: ['human', 'service'] as const });

const User = builder.prismaObject('User', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    userName: t.exposeString('userName'),
    fullName: t.exposeString('fullName'),
    email: t.exposeString('email', { nullable: true }),
    kind: t.expose('kind', { type: UserKindEnum }),
    roleId: t.exposeInt('roleId'),
    isAdmin: t.exposeBoolean('isAdmin'),
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
    resolve: (_root, args, ctx, info) => userService.list(ctx.principal!, args, queryFromInfo({ context: ctx, info, path: ['edges', 'node'] })),
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
