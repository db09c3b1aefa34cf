// Creating, renaming and archiving boards (administrators: a person with an admin role, or a key
// with `boards:write` whose role is admin). A board is made with its priorities, custom fields
// and states, which its tickets are checked against; an archived board keeps its tickets readable
// and changeable, takes no new ones, and stays valid in subscriptions' and roles' board lists.
import { z } from 'zod';
import { AppError, fromZodIssues, type FieldError } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { invalidateLocally } from '../access/invalidation.ts';
import { recordAudit, type AuditActor } from '../audit/audit.writer.ts';
import { text } from '../validation/text.ts';
import { boardAdminRepository, type BoardWithRules, type NewBoard } from './board.repository.ts';

/** Boards per workspace, archived ones included: every role's list, picker and the board list page stay small. */
export const MAX_BOARDS_PER_WORKSPACE = 200;
const MAX_FIELDS = 50;
const MAX_OPTIONS = 100;
const MAX_STATES = 30;
const MAX_PRIORITIES = 20;

const FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'select', 'multiselect'] as const;
const STATE_CATEGORIES = ['open', 'pending', 'solved', 'closed'] as const;

const name = (what: string) => text({ max: 100, min: 1, trim: true, description: `The ${what}'s name, unique on the board` });

export const createBoardInput = z.strictObject({
  name: text({ max: 100, min: 1, trim: true }),
  description: text({ max: 1000 }).nullish(),
  priorities: z.array(text({ max: 50, min: 1, trim: true })).min(1).max(MAX_PRIORITIES).describe('The allowed priority labels, in order; a new ticket without one gets the first'),
  fields: z
    .array(
      z.strictObject({
        name: name('field'),
        type: z.enum(FIELD_TYPES),
        required: z.boolean().optional(),
        options: z.array(text({ max: 100, min: 1, trim: true })).max(MAX_OPTIONS).optional().describe('The choices of a select or multiselect field (at least one); none for other types'),
      }),
    )
    .max(MAX_FIELDS)
    .optional()
    .describe('Custom fields, in order; tickets carry their values as `{fieldId, value}`'),
  states: z
    .array(z.strictObject({ name: name('state'), category: z.enum(STATE_CATEGORIES), initial: z.boolean().optional() }))
    .min(1)
    .max(MAX_STATES)
    .describe('The states, in order; a new ticket starts in the one marked `initial` (at most one; none: the first)'),
});
export const updateBoardInput = z
  .strictObject({ name: text({ max: 100, min: 1, trim: true }), description: text({ max: 1000 }).nullable() })
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'Send at least one member to change' })
  .meta({ minProperties: 1 });

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) throw new AppError('validation_failed', 'The board did not pass validation', { errors: fromZodIssues(r.error.issues) });
  return r.data;
}

/** The scope lets a key ask; only an admin role may change boards (`null`: the operator's CLI). */
function requireAdministrator(p: Principal | null) {
  if (p && !p.role.isAdmin) throw new AppError('forbidden', `The role ${p.role.name} does not allow managing boards`);
}

/** The rules zod cannot say: unique names, options where they belong, one initial state. */
function boardFaults(b: z.infer<typeof createBoardInput>): FieldError[] {
  const errors: FieldError[] = [];
  const duplicates = (list: string[], path: string, member = '') =>
    list.forEach((v, i) => list.findIndex((w) => w.toLowerCase() === v.toLowerCase()) < i && errors.push({ path: `${path}/${i}${member}`, message: `repeats ${v}` }));
  duplicates(b.priorities, '/priorities');
  duplicates((b.fields ?? []).map((f) => f.name), '/fields', '/name');
  duplicates(b.states.map((s) => s.name), '/states', '/name');
  (b.fields ?? []).forEach((f, i) => {
    const choices = f.type === 'select' || f.type === 'multiselect';
    if (choices && !f.options?.length) errors.push({ path: `/fields/${i}/options`, message: `a ${f.type} field needs at least one option` });
    if (!choices && f.options?.length) errors.push({ path: `/fields/${i}/options`, message: `a ${f.type} field has no options` });
    if (f.options) duplicates(f.options, `/fields/${i}/options`);
  });
  if (b.states.filter((s) => s.initial).length > 1) errors.push({ path: '/states', message: 'at most one state is initial' });
  return errors;
}

const boardRecord = (b: BoardWithRules) => ({
  name: b.name,
  description: b.description,
  priorities: b.priorities,
  fields: b.fields.map((f) => ({ id: f.id, name: f.name, type: f.type, required: f.required, options: f.options })),
  states: b.states.map((s) => ({ id: s.id, name: s.name, category: s.category, initial: s.isInitial })),
  archivedAt: b.archivedAt,
});

const notFound = (id: string) => new AppError('not_found', `No board ${id}`);

export const boardAdminService = {
  async create(p: Principal | null, workspaceId: number, input: unknown, actor: AuditActor): Promise<BoardWithRules> {
    requireAdministrator(p);
    const b = parse(createBoardInput, input);
    const errors = boardFaults(b);
    if (errors.length) throw new AppError('validation_failed', 'The board did not pass validation', { errors });
    const initial = b.states.findIndex((s) => s.initial);
    const board: NewBoard = {
      name: b.name,
      description: b.description ?? null,
      priorities: b.priorities,
      fields: (b.fields ?? []).map((f) => ({ name: f.name, type: f.type, required: f.required ?? false, options: f.options ?? [] })),
      states: b.states.map((s, i) => ({ name: s.name, category: s.category, initial: i === (initial === -1 ? 0 : initial) })),
    };
    const created = await boardAdminRepository.create(workspaceId, board, MAX_BOARDS_PER_WORKSPACE, (tx, row) =>
      recordAudit(tx, { workspaceId, actor, action: 'board.created', target: { type: 'board', id: row.id }, before: null, after: boardRecord(row) }),
    );
    if (created === 'limit') {
      throw new AppError('validation_failed', `A workspace has at most ${MAX_BOARDS_PER_WORKSPACE} boards, archived ones included`, { errors: [{ path: '/name', message: `the workspace has ${MAX_BOARDS_PER_WORKSPACE} boards already` }] });
    }
    return created;
  },

  async update(p: Principal | null, workspaceId: number, id: string, input: unknown, actor: AuditActor): Promise<BoardWithRules> {
    requireAdministrator(p);
    const change = parse(updateBoardInput, input);
    return applyChange(workspaceId, actor, id, 'board.updated', change);
  },

  /** Archiving an archived board (or unarchiving an open one) changes nothing and records nothing. */
  async setArchived(p: Principal | null, workspaceId: number, id: string, archived: boolean, actor: AuditActor): Promise<BoardWithRules> {
    requireAdministrator(p);
    return applyChange(workspaceId, actor, id, archived ? 'board.archived' : 'board.unarchived', { archivedAt: archived ? new Date() : null }, { archived: !archived });
  },
};

async function applyChange(workspaceId: number, actor: AuditActor, id: string, action: 'board.updated' | 'board.archived' | 'board.unarchived', data: { name?: string; description?: string | null; archivedAt?: Date | null }, onlyWhen?: { archived: boolean }) {
  const updated = await boardAdminRepository.update(workspaceId, id, data, onlyWhen, (tx, { before, after }) =>
    recordAudit(tx, { workspaceId, actor, action, target: { type: 'board', id }, before: boardRecord(before), after: boardRecord(after) }),
  );
  if (!updated) throw notFound(id);
  invalidateLocally({ kind: 'board', id });
  return updated;
}
