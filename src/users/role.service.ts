// Roles (docs/settings-ui.md, "Roles"): the three built-in ones and custom roles, each a name, the
// boards it sees (every board, or a list) and what it may do beyond reading (admin, or any of
// ROLE_PERMISSIONS). Managed by administrators signed in, or the operator's CLI; never by an API
// key: a role decides what keys see, and a leaked key must not be able to widen any key's reach.
import { z } from 'zod';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { ROLE_PERMISSIONS, type Principal } from '../access/principal.ts';
import { invalidateLocally } from '../access/invalidation.ts';
import { recordAudit, type AuditActor } from '../audit/audit.writer.ts';
import { text } from '../validation/text.ts';
import { roleRecord, roleRepository, type RoleFields, type RoleRow } from './role.repository.ts';

/** Roles per workspace: enough for any team structure; bounds the choices every role picker lists. */
const MAX_ROLES_PER_WORKSPACE = 50;
/**
 * Boards one role may list. Every cached key and session holds its role's list, so the list is
 * bounded; a role meant to see more boards than this sees every board.
 */
const MAX_ROLE_BOARDS = 100;

const BOARD_ID_PATTERN = /^brd_[0-9A-Z]{26}$/;
const boardIdInput = z.string().regex(BOARD_ID_PATTERN, 'is not a board id (brd_…)').meta({ maxLength: 30 });

const roleFields = {
  name: text({ max: 100, min: 1, trim: true, description: 'Unique in the workspace' }),
  isAdmin: z.boolean().describe('An admin role may do everything, administration included (keys, boards, roles, people, the audit log)'),
  permissions: z.array(z.enum(ROLE_PERMISSIONS)).max(ROLE_PERMISSIONS.length * 2).describe('What the role may do beyond reading what it sees'),
  allBoards: z.boolean().describe('Sees every board, archived ones included; otherwise only `boardIds`'),
  boardIds: z.array(boardIdInput).max(MAX_ROLE_BOARDS).describe(`The boards a role that does not see every board sees (at most ${MAX_ROLE_BOARDS})`),
};
const createRoleInput = z
  .strictObject({ ...roleFields, isAdmin: roleFields.isAdmin.default(false), permissions: roleFields.permissions.default([]), allBoards: roleFields.allBoards.default(false), boardIds: roleFields.boardIds.default([]) });
const updateRoleInput = z
  .strictObject(roleFields)
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'Send at least one member to change' });

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) throw new AppError('validation_failed', 'The role did not pass validation', { errors: fromZodIssues(r.error.issues) });
  return r.data;
}

/** Administrators only; never an API key (see the top of this file). */
export function requireRoleManager(p: Principal | null): asserts p is Principal {
  if (p?.kind === 'apiKey') throw new AppError('forbidden', 'API keys cannot manage roles; an administrator does this in the settings');
  if (!p?.role.isAdmin) throw new AppError('forbidden', 'Only administrators manage roles');
}

/** The boards named must be the workspace's (a board of another workspace is "not a board", as a missing one). */
async function checkBoards(workspaceId: number, boardIds: string[] | undefined, allBoards: boolean | undefined) {
  if (!boardIds?.length) return;
  const errors = [];
  if (allBoards) errors.push({ path: '/boardIds', message: 'must be empty when the role sees every board' });
  const existing = await roleRepository.existingBoardIds(workspaceId, boardIds);
  boardIds.forEach((id, i) => existing.has(id) || errors.push({ path: `/boardIds/${i}`, message: `is not a board (${id})` }));
  if (errors.length) throw new AppError('validation_failed', 'The role did not pass validation', { errors });
}

const unique = <T>(list: T[]) => [...new Set(list)].sort();
const nameTaken = (name: string) => new AppError('validation_failed', `A role named ${name} exists already`, { errors: [{ path: '/name', message: 'is taken by another role' }] });

export const roleService = {
  list(p: Principal, query: Parameters<typeof roleRepository.list>[1]) {
    return roleRepository.list(p.workspace.id, query);
  },

  async create(workspaceId: number, input: unknown, actor: AuditActor): Promise<RoleRow> {
    const parsed = parse(createRoleInput, input);
    await checkBoards(workspaceId, parsed.boardIds, parsed.allBoards);
    const fields: RoleFields = { ...parsed, permissions: unique(parsed.permissions), boardIds: parsed.allBoards ? [] : unique(parsed.boardIds) };
    const created = await roleRepository.create(workspaceId, fields, MAX_ROLES_PER_WORKSPACE, (tx, role) =>
      recordAudit(tx, { workspaceId, actor, action: 'role.created', target: { type: 'role', id: role.id }, before: null, after: roleRecord(role) }),
    );
    if (created === 'limit') throw new AppError('validation_failed', `A workspace has at most ${MAX_ROLES_PER_WORKSPACE} roles`, { errors: [{ path: '/name', message: `the workspace has ${MAX_ROLES_PER_WORKSPACE} roles already` }] });
    if (created === 'name_taken') throw nameTaken(fields.name);
    return created;
  },

  async update(workspaceId: number, id: number, input: unknown, actor: AuditActor): Promise<RoleRow> {
    const parsed = parse(updateRoleInput, input);
    await checkBoards(workspaceId, parsed.boardIds, parsed.allBoards);
    const change: Partial<RoleFields> = {
      ...parsed,
      ...(parsed.permissions && { permissions: unique(parsed.permissions) }),
      ...(parsed.boardIds && { boardIds: unique(parsed.boardIds) }),
      // Seeing every board drops the list: it would otherwise come back unseen when the role is limited again.
      ...(parsed.allBoards && { boardIds: [] }),
    };
    const updated = await roleRepository.update(workspaceId, id, change, (tx, { before, after }) =>
      recordAudit(tx, { workspaceId, actor, action: 'role.updated', target: { type: 'role', id }, before: roleRecord(before), after: roleRecord(after) }),
    );
    if (updated === 'not_found') throw new AppError('not_found', `No role ${id}`);
    if (updated === 'built_in') throw new AppError('conflict', 'The built-in roles (Administrator, Agent, Viewer) are not changed: make a custom role instead');
    if (updated === 'name_taken') throw nameTaken(change.name!);
    invalidateLocally({ kind: 'role', id });
    return updated;
  },
};
