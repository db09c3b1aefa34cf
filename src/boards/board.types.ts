// GraphQL types of boards: fields (custom field definitions) and states, and the queries that
// read them (`boards`, `board`).
import { builder } from '../graphql/builder.ts';
import type { ApiScope } from '../auth/principal.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../rest/paging.ts';
import { boardService } from './board.service.ts';

export const FieldTypeEnum = builder.enumType('FieldType', {
  values: ['text', 'number', 'boolean', 'date', 'select', 'multiselect'] as const,
});

export const StateCategoryEnum = builder.enumType('StateCategory', {
  values: ['open', 'pending', 'solved', 'closed'] as const,
});

export const BoardField = builder.prismaObject('BoardField', {
  description: 'A custom field of a board; tickets carry values as {fieldId, value}',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    type: t.expose('type', { type: FieldTypeEnum }),
    required: t.exposeBoolean('required'),
    options: t.exposeStringList('options', { description: 'Allowed values of select and multiselect fields; empty otherwise' }),
  }),
});

export const BoardState = builder.prismaObject('BoardState', {
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    category: t.expose('category', { type: StateCategoryEnum }),
  }),
});

export const Board = builder.prismaObject('Board', {
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    priorities: t.exposeStringList('priorities', { description: 'The allowed priority labels, in order' }),
    fields: t.relation('fields', { query: { orderBy: { position: 'asc' } } }),
    states: t.relation('states', { query: { orderBy: { position: 'asc' } } }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

/** Reading boards needs `boards:read` or either tickets scope (boards are how tickets are filed). */
export const BOARD_READ_SCOPES = ['boards:read', 'tickets:read', 'tickets:write'] as const satisfies readonly ApiScope[];

builder.queryField('boards', (t) =>
  t.prismaConnection({
    type: 'Board',
    cursor: 'id',
    defaultSize: DEFAULT_PAGE_SIZE,
    maxSize: MAX_PAGE_SIZE,
    description: 'The boards the caller’s role sees, oldest first',
    authScopes: { anyScope: [...BOARD_READ_SCOPES] },
    resolve: (query, _root, _args, ctx) => boardService.list(ctx.principal!, query),
  }),
);

builder.queryField('board', (t) =>
  t.prismaField({
    type: 'Board',
    description: 'One board; a board the caller’s role does not see is not found',
    authScopes: { anyScope: [...BOARD_READ_SCOPES] },
    args: { id: t.arg.string({ required: true }) },
    resolve: (query, _root, { id }, ctx) => boardService.get(ctx.principal!, id, query),
  }),
);
