import { z } from 'zod';
import { defineRoutes } from '../rest/route.ts';
import { bulkTicketsInput, MAX_BULK_ITEMS } from './job.inputs.ts';
import { CHUNK_ITEMS, JOB_RETENTION_DAYS, MAX_UNFINISHED_JOBS_PER_WORKSPACE } from './job.limits.ts';

const QUEUED_EXAMPLE = {
  id: 'job_01JD3ZQ8W5T6Y7U8I9O0P1A2S3',
  status: 'queued',
  total: 2,
  processed: 0,
  succeeded: 0,
  failed: 0,
  createdAt: '2026-11-28T10:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  expiresAt: null,
  items: [
    { index: 0, operation: 'create', status: 'pending', ticketId: null, error: null },
    { index: 1, operation: 'update', status: 'pending', ticketId: null, error: null },
  ],
};
const FINISHED_EXAMPLE = {
  ...QUEUED_EXAMPLE,
  status: 'completed',
  processed: 2,
  succeeded: 1,
  failed: 1,
  startedAt: '2026-11-28T10:00:00.120Z',
  finishedAt: '2026-11-28T10:00:00.480Z',
  expiresAt: '2026-12-05T10:00:00.480Z',
  items: [
    { index: 0, operation: 'create', status: 'succeeded', ticketId: 9120, error: null },
    { index: 1, operation: 'update', status: 'failed', ticketId: null, error: { code: 'precondition_failed', detail: 'The ticket changed meanwhile: it is at version 4', errors: null } },
  ],
};

const JOB_SELECTION =
  'id status total processed succeeded failed createdAt startedAt finishedAt expiresAt items { index operation status ticketId error { code detail errors { path message } } }';

export const jobRoutes = defineRoutes([
  {
    operationId: 'bulkTickets',
    method: 'POST',
    path: '/tickets/bulk',
    tag: 'Tickets',
    summary: `Create or change up to ${MAX_BULK_ITEMS} tickets in one request, as a background job`,
    description:
      'Needs the scope `tickets:write`, a role that may change tickets (else 403 `forbidden`) and an API key. ' +
      `\`items\`: 1 to ${MAX_BULK_ITEMS}, each \`{"create": <the body of POST /tickets>}\` or \`{"update": {"id": …, "version": …, <the body of PATCH /tickets/{id}>}}\` ` +
      '(`version` optional: the item changes the ticket only while it is at that version, as `If-Match` does). ' +
      'The whole request is checked before anything is stored: a body over the size limit answers 413, an item of the wrong shape 422 naming `/items/<n>/…`. ' +
      'Each item counts as one request against the key’s allowance: more items than the allowance has left answers 429 `rate_limited` with `Retry-After`, and nothing is stored. ' +
      `So does a ${MAX_UNFINISHED_JOBS_PER_WORKSPACE + 1}th job while ${MAX_UNFINISHED_JOBS_PER_WORKSPACE} of the workspace are queued or running. ` +
      'Answers 202 with the job, `queued`; follow it with `GET /jobs/{id}`. The workspace’s jobs run one at a time, oldest first, ' +
      `${CHUNK_ITEMS} items at a time, in request order; each item is made exactly as its own POST or PATCH would be (the board’s rules, the role’s boards, history, ` +
      'notifications and one `ticket.created` or `ticket.updated`/`ticket.state_changed` event per ticket), with the authority the key has when it runs. ' +
      'An item that fails (a board or ticket the key does not see, a value the board refuses, a stale `version`) fails alone, with the problem its own call would have answered. ' +
      'With `Idempotency-Key`, a repeat answers the first job (as it was accepted) and stores nothing new.',
    operation: /* GraphQL */ `
      mutation bulkTickets($items: [TicketBulkItemInput!]!) {
        bulkTickets(items: $items) { ${JOB_SELECTION} }
      }`,
    body: bulkTicketsInput,
    variables: ({ body }) => ({ items: (body as z.output<typeof bulkTicketsInput>).items }),
    status: 202,
    idempotent: true,
    example: QUEUED_EXAMPLE,
  },
  {
    operationId: 'getJob',
    method: 'GET',
    path: '/jobs/{id}',
    tag: 'Tickets',
    summary: 'A bulk job: its status, progress and each item’s result',
    description:
      'Needs the scope `tickets:read` or `tickets:write`. Only the API key that submitted the job sees it (its items name tickets on boards that key’s role reaches): another key of the workspace, a person or another workspace gets 404, as for a missing job. ' +
      '`status`: `queued`, `running`, `completed` (every item has its result) or `failed` (stopped early: the key was revoked or expired, or the work kept failing; ' +
      'the items not run carry the reason). `processed` = `succeeded` + `failed` of `total`; `items` lists every item in request order, with its `ticketId` or its `error` ' +
      `(\`code\`, \`detail\`, \`errors[]\`). Poll every few seconds until \`completed\` or \`failed\`. Kept ${JOB_RETENTION_DAYS} days after it finished (\`expiresAt\`), then 404.`,
    operation: /* GraphQL */ `
      query getJob($id: String!) {
        ticketBulkJob(id: $id) { ${JOB_SELECTION} }
      }`,
    params: z.object({ id: z.string().regex(/^job_[0-9A-Z]{26}$/).describe('Job id (`job_…`)') }),
    variables: ({ params }) => ({ id: params.id }),
    example: FINISHED_EXAMPLE,
  },
]);
