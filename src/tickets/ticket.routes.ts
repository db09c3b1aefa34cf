import { z } from 'zod';
import { defineRoutes, intIdParam } from '../rest/route.ts';
import { PAGE_INFO_SELECTION, pageVariables } from '../paging/paging.ts';
import { commentInput, commentListQuery, createTicketInput, ticketListQuery, updateTicketInput } from './ticket.inputs.ts';

/** The shared ticket representation (decisions.md): every ticket response selects exactly this. */
const TICKET_SELECTION =
  'id boardId subject description state { id name category } priority requester { email } fields { fieldId value } channel createdBy { id name } createdAt updatedAt';
const COMMENT_SELECTION = 'id ticketId body public channel author { id name } createdAt';

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
      'Answers 201 with the ticket representation, the one webhook events carry in `data`.',
    operation: /* GraphQL */ `
      mutation createTicket($input: CreateTicketInput!) {
        createTicket(input: $input) { ${TICKET_SELECTION} }
      }`,
    body: createTicketInput,
    variables: ({ body }) => ({ input: body }),
    status: 201,
    idempotent: true,
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
    operation: /* GraphQL */ `
      query listTickets($first: Int, $after: String, $boardId: String, $state: String, $updatedSince: DateTime) {
        tickets(first: $first, after: $after, boardId: $boardId, state: $state, updatedSince: $updatedSince) {
          edges { node { ${TICKET_SELECTION} } }
          ${PAGE_INFO_SELECTION}
        }
      }`,
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
    description: READ_NOTE,
    operation: /* GraphQL */ `
      query getTicket($id: Int!) {
        ticket(id: $id) { ${TICKET_SELECTION} }
      }`,
    params: ticketParams,
    variables: ({ params }) => ({ id: params.id }),
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
      '`ticket.state_changed`, other changes `ticket.updated`; a PATCH doing both emits both. Values equal to the current ones change nothing.',
    operation: /* GraphQL */ `
      mutation updateTicket($id: Int!, $input: UpdateTicketInput!) {
        updateTicket(id: $id, input: $input) { ${TICKET_SELECTION} }
      }`,
    params: ticketParams,
    body: updateTicketInput,
    variables: ({ params, body }) => ({ id: params.id, input: body }),
  },
  {
    operationId: 'listTicketComments',
    method: 'GET',
    path: '/tickets/{id}/comments',
    tag: 'Tickets',
    summary: 'The comments of a ticket, oldest first',
    description: READ_NOTE,
    operation: /* GraphQL */ `
      query listTicketComments($ticketId: Int!, $first: Int, $after: String) {
        ticketComments(ticketId: $ticketId, first: $first, after: $after) {
          edges { node { ${COMMENT_SELECTION} } }
          ${PAGE_INFO_SELECTION}
        }
      }`,
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
