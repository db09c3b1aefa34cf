import { z } from 'zod';
import { defineRoutes, intIdParam, pagedOperation } from '../rest/route.ts';
import { pageVariables } from '../paging/paging.ts';
import { ifMatchVersions } from '../rest/conditional.ts';
import { commentInput, commentListQuery, createTicketInput, ticketListQuery, updateTicketInput } from './ticket.inputs.ts';

/** The shared ticket representation (docs/api-contract.md, "Resources"): every ticket response selects exactly this. */
const TICKET_SELECTION =
  'id boardId subject description state { id name category } priority requester { email } fields { fieldId value } channel createdBy { id name } version createdAt updatedAt';
const COMMENT_SELECTION = 'id ticketId body public channel author { id name } createdAt';
const HISTORY_SELECTION = 'id ticketId action actor { id name } channel changes { field oldValue newValue } createdAt';
const ETAG_NOTE = 'The answer carries `ETag: "<version>"`, the ticket’s `version`.';

const READ_NOTE = 'Needs the scope `tickets:read` or `tickets:write`. A ticket on a board the key’s role does not see answers 404.';
const WRITE_NOTE =
  'Needs the scope `tickets:write`, and a role that may change tickets (else 403 `forbidden`). ' +
  'The change is attributed to the key’s service account (history, notifications, webhooks; channel `api`).';

const ticketParams = z.object({ id: intIdParam.describe('Ticket id') });

export const ticketRoutes = defineRoutes([
  {
    operationId: 'createTicket',
    method: 'POST',
    path: '/tickets',
    tag: 'Tickets',
    summary: 'Create a ticket',
    description:
      `${WRITE_NOTE} The ticket starts in its board’s initial state with \`channel\` = \`api\`. ` +
      'Checked against the board: `boardId` must be a board the key sees (else 422 on `/boardId`); `priority` one of the board’s ' +
      '`priorities` (the first when omitted); `fields[]` by `fieldId`, each value of its field’s type, every required field present. ' +
      `Answers 201 with the ticket representation, the one webhook events carry in \`data\`, at \`version\` 1. ${ETAG_NOTE}`,
    operation: /* GraphQL */ `
      mutation createTicket($input: CreateTicketInput!) {
        createTicket(input: $input) { ${TICKET_SELECTION} }
      }`,
    body: createTicketInput,
    variables: ({ body }) => ({ input: body }),
    status: 201,
    idempotent: true,
    etag: true,
  },
  {
    operationId: 'listTickets',
    method: 'GET',
    path: '/tickets',
    tag: 'Tickets',
    summary: 'List tickets, newest first',
    description:
      `${READ_NOTE} Newest first (descending id), so a cursor never skips or repeats a ticket however the list changes. ` +
      'Filters combine: `boardId` (a board the role does not see yields an empty list), `state` (a state id, or a state name ' +
      'matching that name on every board) and `updatedSince` (changed at or after; comments count as changes). Tickets of boards ' +
      'the key’s role does not see are absent.',
    operation: pagedOperation('listTickets', 'tickets', TICKET_SELECTION, { boardId: '$boardId: String', state: '$state: String', updatedSince: '$updatedSince: DateTime' }),
    query: ticketListQuery,
    variables: ({ query }) => ({
      ...pageVariables(query),
      boardId: query.boardId ?? null,
      state: query.state ?? null,
      updatedSince: query.updatedSince ?? null,
    }),
    paged: true,
  },
  {
    operationId: 'getTicket',
    method: 'GET',
    path: '/tickets/{id}',
    tag: 'Tickets',
    summary: 'One ticket',
    description:
      `${READ_NOTE} ${ETAG_NOTE} With \`If-Match: "<version>"\` (for example the \`version\` of a thin webhook event) it answers ` +
      '412 `precondition_failed` once the ticket has changed since that version, and the ticket only while it is still at it.',
    operation: /* GraphQL */ `
      query getTicket($id: Int!) {
        ticket(id: $id) { ${TICKET_SELECTION} }
      }`,
    params: ticketParams,
    variables: ({ params }) => ({ id: params.id }),
    etag: true,
    ifMatch: true,
    codes: ['precondition_failed'],
  },
  {
    operationId: 'updateTicket',
    method: 'PATCH',
    path: '/tickets/{id}',
    tag: 'Tickets',
    summary: 'Change a ticket’s subject, description, priority, state or fields',
    description:
      `${WRITE_NOTE} Send only the members to change (at least one). \`state\` is a state id (or name) of the ticket’s board; ` +
      '`fields[]` changes only the listed fields (`value: null` clears one that is not required). A state change emits ' +
      '`ticket.state_changed`, other changes `ticket.updated`; a PATCH doing both emits both. Values equal to the current ones change nothing. ' +
      'Each change adds one to the ticket’s `version`. With `If-Match: "<version>"` (the `ETag` of a ticket answer) the change is made ' +
      'only if the ticket is still at that version, checked atomically with the change; otherwise 412 `precondition_failed` and nothing ' +
      `changes (read the ticket again, then retry). Without \`If-Match\` (or with \`*\`) the change is made whatever the version. ${ETAG_NOTE}`,
    operation: /* GraphQL */ `
      mutation updateTicket($id: Int!, $input: UpdateTicketInput!, $ifVersion: [Int!]) {
        updateTicket(id: $id, input: $input, ifVersion: $ifVersion) { ${TICKET_SELECTION} }
      }`,
    params: ticketParams,
    body: updateTicketInput,
    variables: ({ params, body, headers }) => ({ id: params.id, input: body, ifVersion: ifMatchVersions(headers) }),
    etag: true,
    ifMatch: true,
    codes: ['precondition_failed'],
  },
  {
    operationId: 'listTicketComments',
    method: 'GET',
    path: '/tickets/{id}/comments',
    tag: 'Tickets',
    summary: 'The comments of a ticket, oldest first',
    description: READ_NOTE,
    operation: pagedOperation('listTicketComments', 'ticketComments', COMMENT_SELECTION, { ticketId: '$ticketId: Int!' }),
    params: ticketParams,
    query: commentListQuery,
    variables: ({ params, query }) => ({ ticketId: params.id, ...pageVariables(query) }),
    paged: true,
  },
  {
    operationId: 'listTicketHistory',
    method: 'GET',
    path: '/tickets/{id}/history',
    tag: 'Tickets',
    summary: 'The history of a ticket, oldest first: who changed what, when, through which channel',
    description:
      `${READ_NOTE} One entry per change: \`created\`, \`updated\` (\`changes\` lists each field with its old and new value), ` +
      '`state_changed` (state names) and `comment_added` (`changes` names the comment’s id). `actor` is the person, or for a change ' +
      'made with an API key that key’s own service account (its `id` is the `serviceUser.id` of `GET /me` for that key), with `channel` `api`.',
    operation: pagedOperation('listTicketHistory', 'ticketHistory', HISTORY_SELECTION, { ticketId: '$ticketId: Int!' }),
    params: ticketParams,
    query: commentListQuery,
    variables: ({ params, query }) => ({ ticketId: params.id, ...pageVariables(query) }),
    paged: true,
  },
  {
    operationId: 'addTicketComment',
    method: 'POST',
    path: '/tickets/{id}/comments',
    tag: 'Tickets',
    summary: 'Comment on a ticket',
    description: `${WRITE_NOTE} \`public: false\` makes an internal note. Emits \`ticket.comment_added\` and moves the ticket’s \`updatedAt\`.`,
    operation: /* GraphQL */ `
      mutation addTicketComment($ticketId: Int!, $body: String!, $public: Boolean) {
        addComment(ticketId: $ticketId, body: $body, public: $public) { ${COMMENT_SELECTION} }
      }`,
    params: ticketParams,
    body: commentInput,
    variables: ({ params, body }) => {
      const comment = body as z.output<typeof commentInput>;
      return { ticketId: params.id, body: comment.body, public: comment.public };
    },
    status: 201,
  },
]);
