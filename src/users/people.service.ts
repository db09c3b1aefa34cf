// Administering people (docs/settings-ui.md, "People"): change a person's role, deactivate (their
// sessions end and their keys stop at once) and reactivate. An admin role may; a key needs
// `users:write` and an admin role too, and may never touch an administrator or make one: a
// leaked key must not be able to lock the administrators out or raise anyone to their rights.
import { z } from 'zod';
import { AppError } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { invalidateLocally } from '../access/invalidation.ts';
import { recordAudit, type AuditActor } from '../audit/audit.writer.ts';
import { peopleRepository, type PersonGuard, type PersonRow } from './people.repository.ts';

export const changeRoleInput = z.strictObject({ roleId: z.int().min(1).max(2 ** 31 - 1).describe('The role the person acts with from their next request on') });

/** Who acts on people: a person (or the operator, `null`) with an admin role, or such a key within its limits. */
export function requirePeopleManager(p: Principal | null) {
  if (p && !p.role.isAdmin) throw new AppError('forbidden', `The role ${p.role.name} does not allow managing people`);
}

function guardFor(p: Principal | null): PersonGuard {
  return (person, role) => {
    if (p?.kind === 'user' && person.id === p.user.id && role === undefined) {
      throw new AppError('conflict', 'You cannot deactivate or reactivate yourself: another administrator can');
    }
    if (p?.kind !== 'apiKey') return;
    if (person.role.isAdmin || role?.isAdmin) throw new AppError('forbidden', 'API keys do not change administrators or give admin roles; an administrator does this in the settings');
  };
}

const notFound = (id: number) => new AppError('not_found', `No person ${id}`);

const record = (u: PersonRow) => ({ roleId: u.roleId, deactivatedAt: u.deactivatedAt });

export const peopleService = {
  async changeRole(p: Principal | null, workspaceId: number, id: number, input: unknown, actor: AuditActor): Promise<PersonRow> {
    requirePeopleManager(p);
    const parsed = changeRoleInput.safeParse(input);
    if (!parsed.success) throw new AppError('validation_failed', 'The role is not valid', { errors: [{ path: '/roleId', message: 'is a role id' }] });
    const { roleId } = parsed.data;
    const after = await peopleRepository.changeRole(workspaceId, id, roleId, guardFor(p), (tx, { before, after }) =>
      recordAudit(tx, { workspaceId, actor, action: 'user.role_changed', target: { type: 'user', id }, before: record(before), after: record(after) }),
    );
    if (after === 'no_person') throw notFound(id);
    // A role of another workspace is "not a role", as a missing one.
    if (after === 'no_role') throw new AppError('validation_failed', `No role ${roleId} in this workspace`, { errors: [{ path: '/roleId', message: 'is not a role of this workspace' }] });
    invalidateLocally({ kind: 'user', id });
    return after;
  },

  async setActive(p: Principal | null, workspaceId: number, id: number, active: boolean, actor: AuditActor): Promise<PersonRow> {
    requirePeopleManager(p);
    const at = active ? null : new Date();
    const after = await peopleRepository.setDeactivated(workspaceId, id, at, guardFor(p), (tx, { before, after }) =>
      recordAudit(tx, { workspaceId, actor, action: active ? 'user.reactivated' : 'user.deactivated', target: { type: 'user', id }, before: record(before), after: record(after) }),
    );
    if (!after) throw notFound(id);
    invalidateLocally({ kind: 'user', id });
    return after;
  },
};
