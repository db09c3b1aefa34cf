// Data access of the audit log: a workspace's entries, newest first by (occurredAt, id), filtered;
// and the standalone write of an entry that has no change to go with (a failed sign-in).
import { prisma } from '../db/db.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { KeysetPage } from '../paging/page-by-key.ts';
import type { TimeAndId } from '../paging/page-keys.ts';
import { recordAudit, type AuditInput } from './audit.writer.ts';

export interface AuditFilter {
  actorType?: string | null;
  actorId?: string | null;
  targetType?: string | null;
  targetId?: string | null;
  action?: string | null;
  since?: Date | null;
  until?: Date | null;
}

const beyond = (k: TimeAndId, op: 'lt' | 'gt'): Prisma.AuditEntryWhereInput => ({
  OR: [{ occurredAt: { [op]: k.at } }, { occurredAt: k.at, id: { [op]: k.id } }],
});

export const auditRepository = {
  list(workspaceId: number, filter: AuditFilter, page: KeysetPage<TimeAndId>) {
    const { lt, gt, in: keys } = page.where.id ?? {};
    const and: Prisma.AuditEntryWhereInput[] = [{ workspaceId }];
    if (filter.actorType) and.push({ actorType: filter.actorType });
    if (filter.actorId) and.push({ actorId: filter.actorId });
    if (filter.targetType) and.push({ targetType: filter.targetType });
    if (filter.targetId) and.push({ targetId: filter.targetId });
    if (filter.action) and.push({ action: filter.action });
    if (filter.since) and.push({ occurredAt: { gte: filter.since } });
    if (filter.until) and.push({ occurredAt: { lt: filter.until } });
    if (lt) and.push(beyond(lt, 'lt'));
    if (gt) and.push(beyond(gt, 'gt'));
    if (keys) and.push({ id: { in: keys.map((k) => k.id) } });
    const dir = page.orderBy.id;
    return prisma.auditEntry.findMany({ where: { AND: and }, orderBy: [{ occurredAt: dir }, { id: dir }], take: page.take });
  },

  /** Entries of `action` on `target` since `since` (the bound on failed sign-ins recorded). */
  countRecent(workspaceId: number, action: string, target: { type: string; id: string }, since: Date) {
    return prisma.auditEntry.count({ where: { workspaceId, action, targetType: target.type, targetId: target.id, occurredAt: { gte: since } } });
  },

  /** An entry of its own (no change to share a transaction with). */
  record(input: AuditInput) {
    return prisma.$transaction((tx) => recordAudit(tx, input));
  },
};
