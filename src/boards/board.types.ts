// GraphQL types of boards: fields (custom field definitions) and states, and the queries that
// read them (`boards`, `board`).
import { builder } from '../graphql/builder.ts';
import type { ApiScope } from '../access/principal.ts';
import { boardService } from './board.service.ts';
import { boardAdminService } from './board-admin.service.ts';
import { actorOf } from '../audit/audit.writer.ts';
import type { BoardWithRules } from './board.repository.ts';

const FieldTypeEnum = builder.enumType('FieldType', {
  values: ['text', 'number', 'boolean', 'date', 'select', 'multiselect'] as const,
});

export const StateCategoryEnum = builder.enumType('StateCategory', {
  values: ['open', 'pending', 'solved', 'closed'] as const,
});

type BoardFieldRow = BoardWithRules['fields'][number];
type BoardStateRow = BoardWithRules['states'][number];

// Plain object types over the rows the service loads with their fields and states (every board
// answer shows both), not plugin-prisma objects, which planned a Prisma query from the GraphQL
// selection on every request and checked a loader mapping for each relation of each board.
const BoardField = builder.objectRef<BoardFieldRow>('BoardField').implement({
  description: 'A custom field of a board; tickets carry values as {fieldId, value}',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    type: t.expose('type', { type: FieldTypeEnum }),
    required: t.exposeBoolean('required'),
    options: t.exposeStringList('options', { description: 'Allowed values of select and multiselect fields; empty otherwise' }),
  }),
});

const BoardState = builder.objectRef<BoardStateRow>('BoardState').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    category: t.expose('category', { type: StateCategoryEnum }),
  }),
});

const Board = builder.objectRef<BoardWithRules>('Board').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    priorities: t.exposeStringList('priorities', { description: 'The allowed priority labels, in order' }),
    fields: t.expose('fields', { type: [BoardField] }),
    states: t.expose('states', { type: [BoardState] }),
    archivedAt: t.expose('archivedAt', { type: 'DateTime', nullable: true, description: 'When it was archived: its tickets stay readable, it takes no new ones; null while open' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

/** Reading boards needs `boards:read` or either tickets scope (boards are how tickets are filed). */
const BOARD_READ_SCOPES = ['boards:read', 'tickets:read', 'tickets:write'] as const satisfies readonly ApiScope[];

builder.queryField('boards', (t) =>
  t.connection({
    type: Board,
    description: 'The boards the caller’s role sees, oldest first',
    authScopes: { anyScope: [...BOARD_READ_SCOPES] },
    resolve: (_root, args, ctx) => boardService.list(ctx.principal!, args),
  }),
);

builder.queryField('board', (t) =>
  t.field({
    type: Board,
    description: 'One board; a board the caller’s role does not see is not found',
    authScopes: { anyScope: [...BOARD_READ_SCOPES] },
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => boardService.get(ctx.principal!, id),
  }),
);

// Administration (board-admin.service.ts): `boards:write` lets a key ask; the role must be admin.
const BoardFieldInput = builder.inputType('BoardFieldInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    type: t.field({ type: FieldTypeEnum, required: true }),
    required: t.boolean(),
    options: t.stringList({ description: 'The choices of a select or multiselect field' }),
  }),
});
const BoardStateInput = builder.inputType('BoardStateInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    category: t.field({ type: StateCategoryEnum, required: true }),
    initial: t.boolean({ description: 'New tickets start here (at most one; none: the first state)' }),
  }),
});
const CreateBoardInput = builder.inputType('CreateBoardInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    priorities: t.stringList({ required: true }),
    fields: t.field({ type: [BoardFieldInput] }),
    states: t.field({ type: [BoardStateInput], required: true }),
  }),
});
const UpdateBoardInput = builder.inputType('UpdateBoardInput', {
  fields: (t) => ({ name: t.string(), description: t.string() }),
});

/** Members sent as null are absent, except a description, which null clears. */
const withoutNulls = <T extends object>(input: T, keep: string[] = []) => Object.fromEntries(Object.entries(input).filter(([k, v]) => v !== null || keep.includes(k)));
const deepWithoutNulls = (input: object) => {
  const out: Record<string, unknown> = withoutNulls(input);
  for (const list of ['fields', 'states']) if (Array.isArray(out[list])) out[list] = (out[list] as object[]).map((item) => withoutNulls(item));
  return out;
};

builder.mutationField('createBoard', (t) =>
  t.field({
    type: Board,
    description: 'A new board with its priorities, custom fields and states (an admin role; keys need `boards:write`)',
    authScopes: { scope: 'boards:write' },
    args: { input: t.arg({ type: CreateBoardInput, required: true }) },
    resolve: (_root, { input }, ctx) => boardAdminService.create(ctx.principal, ctx.principal!.workspace.id, deepWithoutNulls(input), actorOf(ctx.principal!)),
  }),
);

builder.mutationField('updateBoard', (t) =>
  t.field({
    type: Board,
    description: 'Renames a board or changes its description (an admin role; keys need `boards:write`)',
    authScopes: { scope: 'boards:write' },
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: UpdateBoardInput, required: true }) },
    resolve: (_root, { id, input }, ctx) => boardAdminService.update(ctx.principal, ctx.principal!.workspace.id, id, withoutNulls(input, ['description']), actorOf(ctx.principal!)),
  }),
);

builder.mutationField('archiveBoard', (t) =>
  t.field({
    type: Board,
    description: 'Archives a board: its tickets stay readable and changeable, it takes no new ones (an admin role; keys need `boards:write`)',
    authScopes: { scope: 'boards:write' },
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => boardAdminService.setArchived(ctx.principal, ctx.principal!.workspace.id, id, true, actorOf(ctx.principal!)),
  }),
);

builder.mutationField('unarchiveBoard', (t) =>
  t.field({
    type: Board,
    description: 'Opens an archived board again for new tickets (an admin role; keys need `boards:write`)',
    authScopes: { scope: 'boards:write' },
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => boardAdminService.setArchived(ctx.principal, ctx.principal!.workspace.id, id, false, actorOf(ctx.principal!)),
  }),
);
