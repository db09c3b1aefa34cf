import { prisma } from '../db/db.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { roleInclude } from '../access/role-access.ts';
import { INVALIDATION_CHANNEL, invalidationPayload } from '../access/invalidation.ts';
import type { AuditWrite } from '../audit/audit.writer.ts';

const userInclude = { workspace: true, role: { include: roleInclude } } as const;

export const sessionRepository = {
  /**
   * People (never service accounts) who sign in with this e-mail, in one workspace or in any.
   * The e-mail matches whatever its case. Raw SQL because Prisma's case-insensitive `equals`
   * is an ILIKE, where `_` and `%` in the input would act as wildcards.
   */
  async findHumansByEmail(email: string, workspaceDomain: string | undefined, take: number) {
    const inWorkspace = workspaceDomain === undefined ? Prisma.empty : Prisma.sql`AND u."workspaceId" = (SELECT id FROM "Workspace" WHERE domain = ${workspaceDomain})`;
    const ids = await prisma.$queryRaw<{ id: number }[]>`
      SELECT u.id FROM "User" u
      WHERE u.kind = 'human' AND lower(u.email) = lower(${email}) ${inWorkspace}
      ORDER BY u.id LIMIT ${take}`;
    return prisma.user.findMany({ where: { id: { in: ids.map((r) => r.id) } }, include: userInclude, orderBy: { id: 'asc' } });
  },

  /**
   * Also clears the user's expired sessions, so rows do not pile up, and ends the oldest live ones
   * beyond `maxLive` (every instance hears of each when it commits). The ids of those ended.
   */
  async create(input: { id: string; userId: number; csrfToken: string; expiresAt: Date }, now: Date, maxLive: number, audit?: AuditWrite): Promise<string[]> {
    return prisma.$transaction(async (tx) => {
      await tx.session.deleteMany({ where: { userId: input.userId, expiresAt: { lte: now } } });
      await tx.session.create({ data: { ...input, createdAt: now, lastSeenAt: now } });
      await audit?.(tx, undefined);
      const beyond = await tx.session.findMany({
        where: { userId: input.userId },
        select: { id: true },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: maxLive,
      });
      const ids = beyond.map((s) => s.id);
      if (!ids.length) return [];
      await tx.session.deleteMany({ where: { id: { in: ids } } });
      for (const id of ids) await tx.$executeRaw`SELECT pg_notify(${INVALIDATION_CHANNEL}, ${invalidationPayload({ kind: 'session', id })})`;
      return ids;
    });
  },

  /** Only while the hash is still `from`: a password changed meanwhile stays changed. */
  replacePasswordHash(userId: number, from: string, to: string) {
    return prisma.user.updateMany({ where: { id: userId, passwordHash: from }, data: { passwordHash: to } });
  },

  findById(id: string) {
    return prisma.session.findUnique({ where: { id }, include: { user: { include: userInclude } } });
  },

  touch(id: string, at: Date) {
    return prisma.session.updateMany({ where: { id }, data: { lastSeenAt: at } });
  },

  /** Every API instance hears of the ended session when it commits (access/invalidation.ts). */
  delete(id: string, audit?: AuditWrite) {
    return prisma.$transaction(async (tx) => {
      const deleted = await tx.session.deleteMany({ where: { id } });
      if (deleted.count > 0) await tx.$executeRaw`SELECT pg_notify(${INVALIDATION_CHANNEL}, ${invalidationPayload({ kind: 'session', id })})`;
      if (deleted.count > 0) await audit?.(tx, undefined);
      return deleted;
    });
  },
};
