// GraphQL types of roles and the fields that read (`roles`) and change them (`createRole`,
// `updateRole`: administrators signed in, never an API key; role.service.ts says why).
import { builder } from '../graphql/builder.ts';
import { canSeeBoard, ROLE_PERMISSIONS } from '../access/principal.ts';
import { actorOf } from '../audit/audit.writer.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { requireRoleManager, roleService } from './role.service.ts';

builder.prismaObject('Role', {
  description: 'What a role may do and which boards it sees; people and API keys act with a role',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    isAdmin: t.exposeBoolean('isAdmin'),
    allBoards: t.exposeBoolean('allBoards', { description: 'Sees every board; otherwise only `boardIds`' }),
    permissions: t.exposeStringList('permissions', { description: `Actions beyond reading: ${ROLE_PERMISSIONS.join(', ')} (and settings.manage, held by the built-in Administrator role)` }),
    builtIn: t.exposeBoolean('builtIn', { description: 'One of the roles every workspace starts with (Administrator, Agent, Viewer): not changed by administrators' }),
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
    resolve: (query, _root, _args, ctx) => roleService.list(ctx.principal!, query),
  }),
);

const roleInputFields = (required: boolean) => (t: PothosInputFields) => ({
  name: t.string({ required }),
  isAdmin: t.boolean({ required: false }),
  permissions: t.stringList({ required: false, description: ROLE_PERMISSIONS.join(', ') }),
  allBoards: t.boolean({ required: false }),
  boardIds: t.stringList({ required: false, description: 'At most 100 board ids of the workspace' }),
});
type PothosInputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

const CreateRoleInput = builder.inputType('CreateRoleInput', { fields: roleInputFields(true) });
const UpdateRoleInput = builder.inputType('UpdateRoleInput', { fields: roleInputFields(false) });

/** Null members of an input are absent ones. */
const present = <T extends object>(input: T) => Object.fromEntries(Object.entries(input).filter(([, v]) => v != null));

/** An administrator's role; an API key is refused whatever its role (role.service.ts). */
function roleManagers(_parent: unknown, _args: unknown, ctx: GraphQLContext) {
  if (ctx.principal?.kind === 'apiKey') requireRoleManager(ctx.principal);
  return { admin: true };
}

builder.mutationField('createRole', (t) =>
  t.prismaField({
    type: 'Role',
    description: 'A custom role (administrators, signed in; never an API key)',
    authScopes: roleManagers,
    args: { input: t.arg({ type: CreateRoleInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) => roleService.create(ctx.principal!.workspace.id, present(input), actorOf(ctx.principal!)),
  }),
);

builder.mutationField('updateRole', (t) =>
  t.prismaField({
    type: 'Role',
    description:
      'Changes a custom role; people and keys acting with it see the change at their next request (administrators, signed in; never an API key)',
    authScopes: roleManagers,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateRoleInput, required: true }) },
    resolve: (_query, _root, { id, input }, ctx) => roleService.update(ctx.principal!.workspace.id, id, present(input), actorOf(ctx.principal!)),
  }),
);
