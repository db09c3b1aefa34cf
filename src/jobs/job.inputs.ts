// What a bulk request may hold (POST /tickets/bulk and the bulkTickets mutation): one zod schema
// for the REST body, the OpenAPI document and the service, which checks GraphQL input with it.
// The whole request is checked here, before anything is stored: each item's shape is the same
// body as POST /tickets or PATCH /tickets/{id}; what only the board can tell (its priorities,
// states, fields) and whether the ticket exists are checked per item when the job runs.
import { z } from 'zod';
import { createTicketInput, updateTicketInput } from '../tickets/ticket.inputs.ts';

/** Items per request: Zendesk's create_many/update_many take 100 too. */
export const MAX_BULK_ITEMS = 100;

const int32 = z.number().int().min(1).max(2 ** 31 - 1);

const bulkUpdate = z
  .strictObject({
    id: int32.describe('The ticket to change'),
    version: int32.optional().describe('Change only while the ticket is at this `version` (as `If-Match` does); else the item fails with `precondition_failed`'),
    ...updateTicketInput.shape,
  })
  .refine((v) => Object.entries(v).some(([k, x]) => k !== 'id' && k !== 'version' && x !== undefined), {
    message: 'send at least one member to change',
    when: (payload) => payload.issues.length === 0,
  })
  .meta({ minProperties: 2 });

const bulkItem = z
  .strictObject({
    create: createTicketInput.optional().describe('A new ticket: the body of `POST /tickets`'),
    update: bulkUpdate.optional().describe('A change: `id`, optionally `version`, and the body of `PATCH /tickets/{id}`'),
  })
  .refine((v) => (v.create === undefined) !== (v.update === undefined), {
    message: 'must hold exactly one of `create` and `update`',
    when: (payload) => payload.issues.length === 0,
  })
  .meta({ minProperties: 1, maxProperties: 1 });

export type BulkItem = z.output<typeof bulkItem>;

export const bulkTicketsInput = z
  .strictObject({
    items: z.array(bulkItem).min(1).max(MAX_BULK_ITEMS).describe(`1 to ${MAX_BULK_ITEMS} items, each \`{create: …}\` or \`{update: …}\`, run in this order`),
  })
  .meta({
    examples: [
      {
        items: [
          { create: { boardId: 'brd_01JD3ZK5M7Q2W8X9Y0A1B2C3D4', subject: 'Imported: printer on fire', requesterEmail: 'ana@example.com', priority: 'high' } },
          { update: { id: 4711, version: 3, state: 'Solved' } },
        ],
      },
    ],
  });
