// Invitations: pending until accepted (the row is deleted as the account is made, so a link works
// once), revoked (deleted) or expired (deleted when the workspace next invites).
import { prisma } from '../db/db.ts';
import { newId } from '../ids.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { AuditWrite } from '../audit/audit.writer.ts';

const withRole = { role: { select: { id: true, name: true, isAdmin: true } }, workspace: { select: { id: true, name: true, domain: true } } } as const satisfies Prisma.InvitationInclude;
export type InvitationRow = Prisma.InvitationGetPayload<{ include: typeof withRole }>;

export const invitationRepository = {
  /** The workspace's pending invitations, oldest first (at most `take`: the workspace's cap). */
  listPending(workspaceId: number, now: Date, take: number) {
    return prisma.invitation.findMany({ where: { workspaceId, expiresAt: { gt: now } }, include: withRole, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take });
  },

  findRole(workspaceId: number, roleId: number) {
    return prisma.role.findFirst({ where: { id: roleId, workspaceId }, select: { id: true, isAdmin: true } });
  },

  /** Whether a person of the workspace signs in with this e-mail, whatever its case. */
  async hasAccount(workspaceId: number, email: string): Promise<boolean> {
    const rows = await prisma.$queryRaw<unknown[]>`SELECT 1 FROM "User" WHERE "workspaceId" = ${workspaceId} AND kind = 'human' AND lower(email) = lower(${email}) LIMIT 1`;
    return rows.length > 0;
  },

  /**
   * A new invitation, replacing one pending for the same e-mail (its link stops working); expired
   * ones of the workspace go first. 'limit' when `max` others are pending.
   */
  create(
    input: { workspaceId: number; email: string; roleId: number; tokenHash: string; invitedById: number | null; expiresAt: Date },
    now: Date,
    max: number,
    audit: AuditWrite<InvitationRow>,
  ): Promise<InvitationRow | 'limit'> {
    return prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM "Workspace" WHERE id = ${input.workspaceId} FOR UPDATE`;
      await tx.invitation.deleteMany({ where: { workspaceId: input.workspaceId, OR: [{ expiresAt: { lte: now } }, { email: input.email }] } });
      if ((await tx.invitation.count({ where: { workspaceId: input.workspaceId } })) >= max) return 'limit';
      const created = await tx.invitation.create({ data: { id: newId('inv'), ...input, createdAt: now }, include: withRole });
      await audit(tx, created);
      return created;
    });
  },

  revoke(workspaceId: number, id: string, audit: AuditWrite<InvitationRow>): Promise<InvitationRow | null> {
    return prisma.$transaction(async (tx) => {
      const found = await tx.invitation.findFirst({ where: { id, workspaceId }, include: withRole });
      if (!found) return null;
      if ((await tx.invitation.deleteMany({ where: { id } })).count === 0) return null;
      await audit(tx, found);
      return found;
    });
  },

  /** The pending invitation of a token, as long as it has not expired. */
  findByToken(tokenHash: string, now: Date): Promise<InvitationRow | null> {
    return prisma.invitation.findFirst({ where: { tokenHash, expiresAt: { gt: now } }, include: withRole });
  },

  /**
   * Uses the invitation: deletes it and makes the person in one transaction; 'used' when another
   * acceptance (or a revocation) deleted it first, 'taken' when the e-mail got an account meanwhile.
   */
  accept(
    invitation: InvitationRow,
    person: { userName: (taken: (name: string) => Promise<boolean>) => Promise<string>; fullName: string; passwordHash: string },
    audit: AuditWrite<{ id: number }>,
  ): Promise<{ id: number } | 'used' | 'taken'> {
    return prisma.$transaction(async (tx) => {
      const deleted = await tx.invitation.deleteMany({ where: { id: invitation.id, tokenHash: invitation.tokenHash } });
      if (deleted.count === 0) return 'used';
      const taken = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "User" WHERE "workspaceId" = ${invitation.workspaceId} AND lower(email) = lower(${invitation.email}) LIMIT 1`;
      if (taken.length) return 'taken';
      const role = await tx.role.findUniqueOrThrow({ where: { id: invitation.roleId }, select: { isAdmin: true } });
      const userName = await person.userName(async (name) => (await tx.user.count({ where: { workspaceId: invitation.workspaceId, userName: name } })) > 0);
      const user = await tx.user.create({
        data: {
          workspaceId: invitation.workspaceId,
          kind: 'human',
          userName,
          fullName: person.fullName,
          email: invitation.email,
          roleId: invitation.roleId,
          isAdmin: role.isAdmin,
          passwordHash: person.passwordHash,
        },
        select: { id: true },
      });
      await audit(tx, user);
      return user;
    });
  },
};
