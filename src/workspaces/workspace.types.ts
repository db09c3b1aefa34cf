// GraphQL: the caller's workspace (its roles: src/users/role.types.ts).
import { builder } from '../graphql/builder.ts';
import { WorkspaceInfo } from '../graphql/workspace-summaries.ts';

builder.queryField('workspace', (t) =>
  t.field({
    type: WorkspaceInfo,
    description: 'The workspace of the caller (an API key’s, or the signed-in person’s)',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.principal!.workspace,
  }),
);
