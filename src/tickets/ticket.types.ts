// GraphQL of tickets: the shared ticket representation, comments, history, the activity
// report, and their queries and mutations. Every object here resolves from the plain
// representations of ticket.representation.ts, the same objects webhook events carry. Nested
// objects are exposed, not resolved: a field without a resolver is a plain property read in the
// compiled (graphql-jit) operations, where a resolver is a call with its own promise handling per
// ticket and field.
import { builder } from '../graphql/builder.ts';
import { activityReportComplexity } from '../graphql/complexity.ts';
import type { ApiScope } from '../access/principal.ts';
import { StateCategoryEnum } from '../boards/board.types.ts';
import { UserKindEnum } from '../users/user.types.ts';
import type { EventActor, FieldChange } from '../events/event.envelope.ts';
import { ticketService, type ActivityRow } from './ticket.service.ts';
import { fieldLimits, withFieldLimit } from '../rate-limit/field-limit.ts';
import {
  HISTORY_ACTIONS,
  type CommentRepresentation,
  type FieldValue,
  type HistoryEntryRepresentation,
  type TicketRepresentation,
} from './ticket.representation.ts';

const READ: { anyScope: ApiScope[] } = { anyScope: ['tickets:read', 'tickets:write'] };
const WRITE: { scope: ApiScope } = { scope: 'tickets:write' };

const ChannelEnum = builder.enumType('Channel', {
  description: 'How a change reached the workspace: `api` for API keys, `web` for people in the app',
  values: ['api', 'web', 'email', 'system'] as const,
});

const HistoryActionEnum = builder.enumType('TicketHistoryAction', { values: HISTORY_ACTIONS });

const Actor = builder.objectRef<EventActor>('Actor').implement({
  description: 'The account that acted: a person, or the service account of an API key',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
  }),
});

const TicketState = builder.objectRef<TicketRepresentation['state']>('TicketState').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    category: t.expose('category', { type: StateCategoryEnum }),
  }),
});

const Requester = builder.objectRef<TicketRepresentation['requester']>('Requester').implement({
  fields: (t) => ({ email: t.exposeString('email') }),
});

const TicketFieldValue = builder.objectRef<FieldValue>('TicketFieldValue').implement({
  description: 'A custom field value; the field is described by the board (GET /boards/{id})',
  fields: (t) => ({
    fieldId: t.exposeString('fieldId'),
    value: t.expose('value', { type: 'JSON' }),
  }),
});

const Ticket = builder.objectRef<TicketRepresentation>('Ticket').implement({
  description: 'The one ticket representation: every ticket response and the `data` of webhook events',
  fields: (t) => ({
    id: t.exposeInt('id'),
    boardId: t.exposeString('boardId'),
    subject: t.exposeString('subject'),
    description: t.exposeString('description'),
    state: t.expose('state', { type: TicketState }),
    priority: t.exposeString('priority'),
    requester: t.expose('requester', { type: Requester }),
    fields: t.expose('fields', { type: [TicketFieldValue], description: 'Custom field values that are set, in the board’s field order' }),
    channel: t.expose('channel', { type: ChannelEnum, description: '`api` when created through the API' }),
    createdBy: t.expose('createdBy', { type: Actor }),
    version: t.exposeInt('version', {
      description: '1 when created, one more with each change (update, state change, comment): of two copies of a ticket, the higher version is the newer',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const TicketChange = builder.objectRef<FieldChange>('TicketChange').implement({
  description: '`field` is subject, description, priority, state (values are state names), `fields.<fieldId>` or comment',
  fields: (t) => ({
    field: t.exposeString('field'),
    oldValue: t.expose('oldValue', { type: 'JSON', nullable: true }),
    newValue: t.expose('newValue', { type: 'JSON', nullable: true }),
  }),
});

const Comment = builder.objectRef<CommentRepresentation>('Comment').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    ticketId: t.exposeInt('ticketId'),
    body: t.exposeString('body'),
    public: t.exposeBoolean('public', { description: 'false: an internal note, not shown to the requester' }),
    channel: t.expose('channel', { type: ChannelEnum }),
    author: t.expose('author', { type: Actor }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const TicketHistoryEntry = builder.objectRef<HistoryEntryRepresentation>('TicketHistoryEntry').implement({
  description: 'One change to a ticket: who (actor), through which channel, what changed',
  fields: (t) => ({
    id: t.exposeInt('id'),
    ticketId: t.exposeInt('ticketId'),
    action: t.expose('action', { type: HistoryActionEnum }),
    actor: t.expose('actor', { type: Actor }),
    channel: t.expose('channel', { type: ChannelEnum }),
    changes: t.expose('changes', { type: [TicketChange] }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const TicketActivity = builder.objectRef<ActivityRow>('TicketActivity').implement({
  description: 'What one actor did through one channel over the period',
  fields: (t) => ({
    actor: t.expose('actor', { type: Actor }),
    actorKind: t.expose('actorKind', { type: UserKindEnum, description: '`service`: the service account of an API key' }),
    channel: t.expose('channel', { type: ChannelEnum }),
    ticketsCreated: t.exposeInt('ticketsCreated'),
    ticketsChanged: t.exposeInt('ticketsChanged', { description: 'Distinct tickets updated, moved to another state or commented on' }),
    changes: t.exposeInt('changes', { description: 'Updates, state changes and comments' }),
  }),
});

builder.queryFields((t) => ({
  ticket: t.field({
    type: Ticket,
    description: 'One ticket; a ticket on a board the caller’s role does not see is not found',
    authScopes: READ,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, { id }, ctx) => ticketService.get(ctx.principal!, id),
  }),

  tickets: t.connection(
    {
      type: Ticket,
      description: 'Tickets the caller’s role sees, newest first (descending id), so paging never skips or repeats one',
      authScopes: READ,
      args: {
        boardId: t.arg.string({ description: 'Only tickets of this board' }),
        state: t.arg.string({ description: 'A state id, or a state name (matching that name on every board)' }),
        updatedSince: t.arg({ type: 'DateTime', description: 'Only tickets changed at or after this time' }),
      },
      resolve: (_root, { boardId, state, updatedSince, ...paging }, ctx) =>
        ticketService.list(ctx.principal!, { boardId, state, updatedSince }, paging, ctx.pageHold),
    },
    { name: 'TicketConnection' },
    { name: 'TicketEdge' },
  ),

  ticketComments: t.connection(
    {
      type: Comment,
      description: 'The comments of a ticket, oldest first',
      authScopes: READ,
      args: { ticketId: t.arg.int({ required: true }) },
      resolve: (_root, { ticketId, ...paging }, ctx) => ticketService.comments(ctx.principal!, ticketId, paging, ctx.pageHold),
    },
    { name: 'CommentConnection' },
    { name: 'CommentEdge' },
  ),

  ticketHistory: t.connection(
    {
      type: TicketHistoryEntry,
      description: 'The history of a ticket, oldest first',
      authScopes: READ,
      args: { ticketId: t.arg.int({ required: true }) },
      resolve: (_root, { ticketId, ...paging }, ctx) => ticketService.history(ctx.principal!, ticketId, paging, ctx.pageHold),
    },
    { name: 'TicketHistoryConnection' },
    { name: 'TicketHistoryEdge' },
  ),

  ticketActivityReport: t.field({
    type: [TicketActivity],
    description:
      'Tickets created and changed per actor and channel over [from, to), from ticket history. Priced by its window (300 per day): a year fits the cost limit of one request, longer windows are refused with `query_too_complex`.',
    authScopes: READ,
    complexity: activityReportComplexity,
    args: {
      from: t.arg({ type: 'DateTime', required: true }),
      to: t.arg({ type: 'DateTime', required: true }),
    },
    resolve: (_root, { from, to }, ctx) => ticketService.activityReport(ctx.principal!, from, to),
  }),
}));

export const TicketFieldInput = builder.inputType('TicketFieldInput', {
  fields: (t) => ({
    fieldId: t.string({ required: true }),
    value: t.field({ type: 'JSON', description: 'Checked against the field’s type; null clears the field (updates)' }),
  }),
});

export const CreateTicketInput = builder.inputType('CreateTicketInput', {
  fields: (t) => ({
    boardId: t.string({ required: true }),
    subject: t.string({ required: true }),
    description: t.string(),
    requesterEmail: t.string({ required: true }),
    priority: t.string({ description: 'One of the board’s priorities; the first of them when omitted' }),
    fields: t.field({ type: [TicketFieldInput] }),
  }),
});

const UpdateTicketInput = builder.inputType('UpdateTicketInput', {
  fields: (t) => ({
    subject: t.string(),
    description: t.string(),
    priority: t.string(),
    state: t.string({ description: 'A state id (or name) of the ticket’s board' }),
    fields: t.field({ type: [TicketFieldInput], description: 'Only the listed fields change' }),
  }),
});

builder.mutationFields((t) => ({
  createTicket: t.field({
    type: Ticket,
    description: 'Creates a ticket in the board’s initial state, attributed to the caller',
    authScopes: WRITE,
    args: { input: t.arg({ type: CreateTicketInput, required: true }) },
    resolve: withFieldLimit(fieldLimits.createTicket, (_root, { input }, ctx) => ticketService.create(ctx.principal!, input, ctx.idempotencyClaim)),
  }),

  updateTicket: t.field({
    type: Ticket,
    authScopes: WRITE,
    args: {
      id: t.arg.int({ required: true }),
      input: t.arg({ type: UpdateTicketInput, required: true }),
      ifVersion: t.arg.intList({
        description: 'Change only while the ticket’s `version` is one of these (REST: `If-Match`); else `precondition_failed` and nothing changes (at most 20)',
      }),
    },
    resolve: (_root, { id, input, ifVersion }, ctx) => ticketService.update(ctx.principal!, id, input, ifVersion),
  }),

  addComment: t.field({
    type: Comment,
    authScopes: WRITE,
    args: {
      ticketId: t.arg.int({ required: true }),
      body: t.arg.string({ required: true }),
      public: t.arg.boolean({ description: 'Default true; false makes an internal note' }),
    },
    resolve: (_root, { ticketId, body, public: isPublic }, ctx) =>
      ticketService.addComment(ctx.principal!, ticketId, { body, ...(isPublic != null ? { public: isPublic } : {}) }),
  }),
}));
