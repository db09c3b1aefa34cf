// Changing people: their role, deactivation and reactivation. Each write locks the workspace's row
// (administrators.ts: the last administrator stays), writes its audit entry and announces the
// person's invalidation in one transaction, so their cached sessions and keys go at its commit.
import { prisma } from '../db/db.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { announceInvalidation } from '../access/invalidation.ts';
import type { AuditWrite } from '../audit/audit.writer.ts';
import { assertAnotherAdministrator, lockWorkspace } from './administrators.ts';

const withRole = { role: { select: { id: true, name: true, isAdmin: true } } } as const satisfies Prisma.UserInclude;
export type PersonRow = Prisma.UserGetPayload<{ include: typeof withRole }>;

/** What the caller's rule says of the person before the change is made (e.g. an API key may not change an administrator). */
export type PersonGuard = (person: PersonRow, role?: { id: number; isAdmin: boolean }) => void;

async function lockedPerson(tx: Prisma.TransactionClient, workspaceId: number, id: number): Promise<PersonRow | null> {
  await lockWorkspace(tx, workspaceId);
  return tx.user.findFirst({ where: { id, workspaceId, kind: 'human' }, include: withRole });
}

const isActiveAdministrator = (p: PersonRow) => p.deactivatedAt === null && p.role.isAdmin;

export const peopleRepository = {
  /** The workspace's people after `afterId`, by id, `take` at a time (the operator's list). */
  listAfter(workspaceId: number, afterId: number, take: number) {
    return prisma.user.findMany({ where: { workspaceId, kind: 'human', id: { gt: afterId } }, include: withRole, orderBy: { id: 'asc' }, take });
  },

  /** The person with their new role (whose isAdmin their notices follow), or which of the two the workspace does not have. */
  changeRole(workspaceId: number, id: number, roleId: number, guard: PersonGuard, audit: AuditWrite<{ before: PersonRow; after: PersonRow }>): Promise<PersonRow | 'no_person' | 'no_role'> {
    return prisma.$transaction(async (tx) => {
      const before = await lockedPerson(tx, workspaceId, id);
      if (!before) return 'no_person';
      const role = await tx.role.findFirst({ where: { id: roleId, workspaceId }, select: { id: true, isAdmin: true } });
      if (!role) return 'no_role';
      guard(before, role);
      if (before.roleId === roleId) return before;
      if (isActiveAdministrator(before) && !role.isAdmin) await assertAnotherAdministrator(tx, workspaceId, { userId: id });
      const after = await tx.user.update({ where: { id }, data: { roleId, isAdmin: role.isAdmin }, include: withRole });
      await announceInvalidation(tx, { kind: 'user', id });
      await audit(tx, { before, after });
      return after;
    });
  },

  /**
   * Deactivates (`at`) or reactivates (null) a person. Deactivating ends their sessions in the same
   * transaction; their keys stop through the announcement (api-key.service.ts `usable`).
   */
  setDeactivated(workspaceId: number, id: number, at: Date | null, guard: PersonGuard, audit: AuditWrite<{ before: PersonRow; after: PersonRow }>): Promise<PersonRow | null> {
    return prisma.$transaction(async (tx) => {
      const before = await lockedPerson(tx, workspaceId, id);
      if (!before) return null;
      guard(before);
      if ((before.deactivatedAt === null) === (at === null)) return before;
      if (at && isActiveAdministrator(before)) await assertAnotherAdministrator(tx, workspaceId, { userId: id });
      const after = await tx.user.update({ where: { id }, data: { deactivatedAt: at }, include: withRole });
      if (at) await tx.session.deleteMany({ where: { userId: id } });
      await announceInvalidation(tx, { kind: 'user', id });
      await audit(tx, { before, after });
      return after;
    });
  },
};
