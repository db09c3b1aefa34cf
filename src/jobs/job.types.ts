// GraphQL of bulk ticket jobs: the bulkTickets mutation, the job(id) query and what they answer.
import { builder } from '../graphql/builder.ts';
import type { ApiScope } from '../access/principal.ts';
import { CreateTicketInput, TicketFieldInput } from '../tickets/ticket.types.ts';
import { MAX_BULK_ITEMS } from './job.inputs.ts';
import { jobService, type JobItemRepresentation, type JobRepresentation } from './job.service.ts';
import type { ItemProblem } from './job.repository.ts';
import { JOB_RETENTION_DAYS, MAX_UNFINISHED_JOBS_PER_WORKSPACE } from './job.limits.ts';

const READ: { anyScope: ApiScope[] } = { anyScope: ['tickets:read', 'tickets:write'] };
const WRITE: { scope: ApiScope } = { scope: 'tickets:write' };

const JobStatusEnum = builder.enumType('TicketBulkJobStatus', {
  values: {
    queued: { description: 'Stored; waits for its workspace’s earlier jobs' },
    running: { description: 'Its items are being made, in order' },
    completed: { description: 'Every item has its result (each succeeded or failed on its own)' },
    failed: { description: 'Stopped before the end (the key was revoked, or the work kept failing): the items not run failed with its reason' },
  } as const,
});

const ItemStatusEnum = builder.enumType('TicketBulkItemStatus', { values: ['pending', 'succeeded', 'failed'] as const });
const ItemOperationEnum = builder.enumType('TicketBulkItemOperation', { values: ['create', 'update'] as const });

const ItemFieldError = builder.objectRef<{ path: string; message: string }>('TicketBulkItemFieldError').implement({
  fields: (t) => ({
    path: t.exposeString('path', { description: 'JSON pointer into the item’s `create` or `update` body' }),
    message: t.exposeString('message'),
  }),
});

const ItemError = builder.objectRef<ItemProblem>('TicketBulkItemError').implement({
  description: 'Why an item failed: the problem `code` and `detail` its own `POST /tickets` or `PATCH /tickets/{id}` would have answered',
  fields: (t) => ({
    code: t.exposeString('code'),
    detail: t.exposeString('detail'),
    errors: t.field({ type: [ItemFieldError], nullable: true, resolve: (e) => e.errors ?? null }),
  }),
});

const JobItem = builder.objectRef<JobItemRepresentation>('TicketBulkJobItem').implement({
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Its place in the request, from 0' }),
    operation: t.expose('operation', { type: ItemOperationEnum }),
    status: t.expose('status', { type: ItemStatusEnum }),
    ticketId: t.exposeInt('ticketId', { nullable: true, description: 'The ticket made or changed (succeeded items)' }),
    error: t.expose('error', { type: ItemError, nullable: true, description: 'Why it failed (failed items)' }),
  }),
});

const Job = builder.objectRef<JobRepresentation>('TicketBulkJob').implement({
  description: `A bulk job of tickets: its progress and each item’s result. Kept ${JOB_RETENTION_DAYS} days after it finished.`,
  fields: (t) => ({
    id: t.exposeString('id', { description: '`job_…`' }),
    status: t.expose('status', { type: JobStatusEnum }),
    total: t.exposeInt('total', { description: 'Items in the request' }),
    processed: t.exposeInt('processed', { description: 'Items with a result: succeeded + failed' }),
    succeeded: t.exposeInt('succeeded'),
    failed: t.exposeInt('failed'),
    createdAt: t.field({ type: 'DateTime', resolve: (j) => j.createdAt }),
    startedAt: t.field({ type: 'DateTime', nullable: true, resolve: (j) => j.startedAt }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (j) => j.finishedAt }),
    expiresAt: t.field({ type: 'DateTime', nullable: true, description: 'When it stops being readable (404): set once it finished', resolve: (j) => j.expiresAt }),
    items: t.expose('items', { type: [JobItem], description: 'Every item, in request order' }),
  }),
});

const TicketBulkUpdateInput = builder.inputType('TicketBulkUpdateInput', {
  fields: (t) => ({
    id: t.int({ required: true, description: 'The ticket to change' }),
    version: t.int({ description: 'Change only while the ticket is at this version; else the item fails with `precondition_failed`' }),
    subject: t.string(),
    description: t.string(),
    priority: t.string(),
    state: t.string({ description: 'A state id (or name) of the ticket’s board' }),
    fields: t.field({ type: [TicketFieldInput], description: 'Only the listed fields change' }),
  }),
});

const TicketBulkItemInput = builder.inputType('TicketBulkItemInput', {
  description: 'Exactly one of `create` and `update`',
  fields: (t) => ({
    create: t.field({ type: CreateTicketInput }),
    update: t.field({ type: TicketBulkUpdateInput }),
  }),
});

builder.queryFields((t) => ({
  ticketBulkJob: t.field({
    type: Job,
    description: 'A bulk job, to the API key that submitted it (any other caller, of this workspace or another, gets `not_found`, as for a missing one)',
    authScopes: READ,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => jobService.get(ctx.principal!, id),
  }),
}));

builder.mutationFields((t) => ({
  bulkTickets: t.field({
    type: Job,
    description:
      `Creates or changes up to ${MAX_BULK_ITEMS} tickets in the background, each as its own createTicket or updateTicket would (same rules, history and events), ` +
      'and answers the queued job at once; follow it with `ticketBulkJob(id)`. Each item counts as one request against the key’s allowance. ' +
      `API keys only; at most ${MAX_UNFINISHED_JOBS_PER_WORKSPACE} unfinished jobs per workspace.`,
    authScopes: WRITE,
    args: { items: t.arg({ type: [TicketBulkItemInput], required: true }) },
    resolve: (_root, { items }, ctx) => jobService.acceptBulk(ctx.principal!, { items }, { idempotencyClaim: ctx.idempotencyClaim, chargeRequests: ctx.chargeRequests }),
  }),
}));
