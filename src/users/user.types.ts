// GraphQL types of users (people and the service accounts of API keys). Queries below.
import { builder } from '../graphql/builder.ts';

export const UserKindEnum = builder.enumType('UserKind', { values: ['human', 'service'] as const });

export const User = builder.prismaObject('User', {
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
