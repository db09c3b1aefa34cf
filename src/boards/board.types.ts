// GraphQL types of boards: fields (custom field definitions) and states, and the queries that
// read them (`boards`, `board`).
import { builder } from '../graphql/builder.ts';
import type { ApiScope } from '../access/principal.ts';
import { boardService } from './board.service.ts';
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
