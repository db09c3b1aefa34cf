import { prisma } from '../db/db.ts';
import { roleInclude } from '../access/role-access.ts';
import { INVALIDATION_CHANNEL, invalidationPayload } from '../access/invalidation.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { KeysetPage } from '../paging/page-by-key.ts';
import type { AuditWrite } from '../audit/audit.writer.ts';

const keyInclude = {
  workspace: true,
  serviceUser: { include: { role: { include: roleInclude } } },
  createdBy: { select: { deactivatedAt: true } },
} as const;

export const apiKeyRepository = {
  findByPrefix(prefix: string) {
    return prisma.apiKey.findUnique({ where: { prefix }, include: keyInclude });
  },

  findById(id: number) {
    return prisma.apiKey.findUnique({ where: { id }, include: keyInclude });
  },

  touch(id: number, at: Date) {
    return prisma.apiKey.update({ where: { id }, data: { lastUsedAt: at }, select: { id: true } });
  },

  /**
   * The key and its own service account are created together, unless the workspace has
   * `workspaceLimit` usable keys (not revoked, not expired) already: then `limitReached`.
   */
  create(input: {
    workspaceId: number;
    name: string;
    prefix: string;
    secretHash: string;
    scopes: string[];
    roleId: number;
    expiresAt: Date | null;
    createdById: number | null;
    requestsPerMinute: number;
    maxWebhookSubscriptions: number;
    workspaceLimit: number;
  }, audit?: AuditWrite<{ id: number; prefix: string }>) {
    return prisma.$transaction(async (tx) => {
      // The workspace's key creations one at a time, so that the count holds (NO KEY UPDATE: inserts
      // that reference the workspace go on).
      await tx.$queryRaw`SELECT 1 FROM "Workspace" WHERE "id" = ${input.workspaceId}::int FOR NO KEY UPDATE`;
      const usable = await tx.apiKey.count({ where: { workspaceId: input.workspaceId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] } });
      if (usable >= input.workspaceLimit) return { limitReached: true as const };
      const serviceUser = await tx.user.create({
        data: {
          workspaceId: input.workspaceId,
          kind: 'service',
          userName: `svc-${input.prefix.slice(4).toLowerCase()}`,
          fullName: `${input.name} (API key)`,
          roleId: input.roleId,
        },
      });
      const created = await tx.apiKey.create({
        data: {
          workspaceId: input.workspaceId,
          name: input.name,
          prefix: input.prefix,
          secretHash: input.secretHash,
          scopes: input.scopes,
          expiresAt: input.expiresAt,
          createdById: input.createdById,
          serviceUserId: serviceUser.id,
          requestsPerMinute: input.requestsPerMinute,
          maxWebhookSubscriptions: input.maxWebhookSubscriptions,
        },
        include: keyInclude,
      });
      await audit?.(tx, created);
      return created;
    });
  },

  /** `query`: the connection's paging and selection, from plugin-prisma. */
  list(workspaceId: number, page: KeysetPage, query: Pick<Prisma.ApiKeyFindManyArgs, 'include' | 'select'>) {
    return prisma.apiKey.findMany({ ...query, where: { AND: [{ workspaceId }, page.where] }, orderBy: page.orderBy, take: page.take });
  },

  /** Every API instance hears of the revocation when it commits (access/invalidation.ts). */
  revoke(workspaceId: number, id: number, at: Date, audit?: AuditWrite) {
    return prisma.$transaction(async (tx) => {
      const revoked = await tx.apiKey.updateMany({ where: { id, workspaceId, revokedAt: null }, data: { revokedAt: at } });
      if (revoked.count > 0) await tx.$executeRaw`SELECT pg_notify(${INVALIDATION_CHANNEL}, ${invalidationPayload({ kind: 'apiKey', id })})`;
      if (revoked.count > 0) await audit?.(tx, undefined);
      return revoked;
    });
  },

  findRole(workspaceId: number, roleIdOrName: number | string) {
    return prisma.role.findFirst({
      where: { workspaceId, ...(typeof roleIdOrName === 'number' ? { id: roleIdOrName } : { name: roleIdOrName }) },
    });
  },
};
