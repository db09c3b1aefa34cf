// GraphQL: the caller's workspace and its roles.
import { builder } from '../graphql/builder.ts';
import { canSeeBoard } from '../access/principal.ts';
import { WorkspaceInfo } from '../graphql/workspace-summaries.ts';
import { userService } from '../users/user.service.ts';

builder.queryField('workspace', (t) =>
  t.field({
    type: WorkspaceInfo,
    description: 'The workspace of the caller (an API key’s, or the signed-in person’s)',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.principal!.workspace,
  }),
);

const Role = builder.prismaObject('Role', {
  description: 'What a role may do and which boards it sees; API keys act with a role',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    isAdmin: t.exposeBoolean('isAdmin'),
    allBoards: t.exposeBoolean('allBoards', { description: 'Sees every board; otherwise only `boardIds`' }),
    permissions: t.exposeStringList('permissions', { description: 'Actions beyond reading: tickets.write, kb.write, webhooks.manage, settings.manage' }),
    boardIds: t.stringList({
      description: 'The boards a role limited to some boards sees (only those the caller sees too)',
      select: { boards: { select: { boardId: true } } },
      resolve: (role, _args, ctx) => role.boards.map((b) => b.boardId).filter((id) => canSeeBoard(ctx.principal!.role, id)),
    }),
  }),
});

builder.queryField('roles', (t) =>
  t.prismaField({
    type: ['Role'],
    description: 'The roles of the workspace',
    authScopes: { scope: 'users:read' },
    resolve: (query, _root, _args, ctx) => userService.roles(ctx.principal!, query),
  }),
);
