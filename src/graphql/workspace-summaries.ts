// GraphQL: the two summaries a caller's identity shows (`me` for an API key, `viewer` for a
// person): its workspace and its role.
import { builder } from './builder.ts';
import type { ApiKeyPrincipal } from '../access/principal.ts';

export const WorkspaceInfo = builder.objectRef<ApiKeyPrincipal['workspace']>('WorkspaceInfo').implement({
  fields: (t) => ({
    domain: t.exposeString('domain', { description: 'Workspace address (URL)' }),
    name: t.exposeString('name'),
  }),
});

export const RoleSummary = builder.objectRef<{ id: number; name: string }>('RoleSummary').implement({
  description: 'A role: what its members may do and which boards they see',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
  }),
});
