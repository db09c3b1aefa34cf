// GraphQL types of boards: fields (custom field definitions) and states. Queries and mutations
// of this domain are added below the types.
import { builder } from '../graphql/builder.ts';

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
