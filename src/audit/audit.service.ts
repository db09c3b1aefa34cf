// Reading the audit log: administrators only (a person with the admin role; a key with the
// audit:read scope whose role is admin), their own workspace's entries, newest first.
import { z } from 'zod';
import type { Principal } from '../access/principal.ts';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import { pageByKey, type ConnectionArgs } from '../paging/page-by-key.ts';
import { timeAndId } from '../paging/page-keys.ts';
import { AUDIT_ACTION_NAMES, AUDIT_ACTOR_TYPES, AUDIT_TARGET_TYPES } from './audit.actions.ts';
import { auditRepository, type AuditFilter } from './audit.repository.ts';

const auditKeys = timeAndId(/^aud_[0-9A-Z]{26}$/);

/** The filters' rules, checked before any read (GraphQL arguments arrive unchecked). */
const auditFilterSchema = z
  .object({
    actorType: z.enum(AUDIT_ACTOR_TYPES).nullish(),
    actorId: z.string().regex(/^[0-9]{1,10}$/, 'is a user or key id: decimal digits').nullish(),
    targetType: z.enum(AUDIT_TARGET_TYPES).nullish(),
    targetId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'is an id: letters, digits, _ and -, at most 64').nullish(),
    action: z.enum(AUDIT_ACTION_NAMES as [string, ...string[]]).nullish(),
    since: z.date().nullish(),
    until: z.date().nullish(),
  })
  .strict();

export type AuditEntryRow = Awaited<ReturnType<typeof auditRepository.list>>[number];

export const auditService = {
  list(p: Principal, filter: AuditFilter, args: ConnectionArgs) {
    if (!p.role.isAdmin) throw new AppError('forbidden', 'Only administrators read the audit log');
    const parsed = auditFilterSchema.safeParse(filter);
    if (!parsed.success) throw new AppError('validation_failed', 'The audit log filters are not valid', { errors: fromZodIssues(parsed.error.issues) });
    const f = parsed.data;
    if ((f.actorId && !f.actorType) || (f.targetId && !f.targetType)) {
      throw new AppError('validation_failed', 'An actor or target id needs its type', {
        errors: [{ path: f.actorId && !f.actorType ? '/actorType' : '/targetType', message: 'is required with the id' }],
      });
    }
    return pageByKey(args, {
      key: auditKeys,
      keyOf: (row: AuditEntryRow) => ({ at: row.occurredAt, id: row.id }),
      newestFirst: true,
      load: (page) => auditRepository.list(p.workspace.id, f, page),
    });
  },
};
