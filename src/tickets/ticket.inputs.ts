// What callers may send: one set of zod schemas for the REST bodies/queries (and hence the
// OpenAPI document) and for the service, which checks GraphQL input with the same rules.
import { z } from 'zod';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { pageQuery } from '../paging/paging.ts';
import { dateTime, emailAddress, jsonValue, text } from '../validation/text.ts';

const MAX_SUBJECT = 250;
/** 64 KiB of text (in characters) for descriptions, comments and text fields. */
export const MAX_TEXT = 65_536;
const MAX_FIELD_ENTRIES = 100;

/** Board, field and state ids (`brd_…`, `fld_…`, `st_…`). */
const recordId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'is not an id');

const fieldValueInput = z
  .object({
    fieldId: recordId.describe('A field id of the ticket’s board (GET /boards/{id})'),
    value: jsonValue()
      .refine((v) => v !== undefined, 'is required (null clears the field)')
      .describe(
        'text: string; number: number; boolean: boolean; date: "YYYY-MM-DD" (years 1 to 9999); select: one option; multiselect: array of options. Strings follow the text rule.',
      ),
  })
  .strict();

const fieldsInput = z.array(fieldValueInput).max(MAX_FIELD_ENTRIES);

export const createTicketInput = z
  .object({
    boardId: recordId.describe('The board that receives the ticket (GET /boards)'),
    subject: text({ max: MAX_SUBJECT, min: 1, trim: true }),
    description: text({ max: MAX_TEXT }).default(''),
    requesterEmail: emailAddress(),
    priority: text({ max: 100, min: 1, description: 'One of the board’s `priorities`; the first of them when omitted' }).optional(),
    fields: fieldsInput.default([]).describe('Custom field values; every required field of the board must be present'),
  })
  .strict();
export const updateTicketInput = z
  .object({
    subject: text({ max: MAX_SUBJECT, min: 1, trim: true }).optional(),
    description: text({ max: MAX_TEXT }).optional(),
    priority: text({ max: 100, min: 1, description: 'One of the board’s `priorities`' }).optional(),
    state: text({ max: 100, min: 1, description: 'A state of the ticket’s board, by id (or by name)' }).optional(),
    fields: fieldsInput.optional().describe('Only the listed fields change; `value: null` clears a field that is not required'),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), {
    message: 'send at least one member to change',
    // Unknown members are reported as such, not also as "nothing to change".
    when: (payload) => payload.issues.length === 0,
  })
  .meta({ minProperties: 1 });
export const commentInput = z
  .object({
    body: text({ max: MAX_TEXT, min: 1, trim: true }),
    public: z.boolean().default(true).describe('false: an internal note, not shown to the requester'),
  })
  .strict();

export const ticketListFilter = z.object({
  boardId: recordId.optional().describe('Only tickets of this board'),
  state: text({ max: 100, min: 1, description: 'Only tickets in this state: a state id, or a state name (matches that name on every board)' }).optional(),
  updatedSince: dateTime('Only tickets changed at or after this ISO 8601 time').optional(),
});

export const ticketListQuery = pageQuery.extend(ticketListFilter.shape);
export const commentListQuery = pageQuery;

/** Parses input with the API's rules: a failure is a 422 naming each offending member. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, detail = 'The input did not pass validation'): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new AppError('validation_failed', detail, { errors: fromZodIssues(r.error.issues) });
  return r.data;
}
