import { z } from 'zod';
import { defineRoutes, pagedOperation } from '../rest/route.ts';
import { dateTime } from '../validation/text.ts';
import { pageQuery, pageVariables } from '../paging/paging.ts';
import { AUDIT_ACTION_NAMES, AUDIT_ACTOR_TYPES, AUDIT_TARGET_TYPES } from './audit.actions.ts';

const ENTRY_SELECTION = 'id occurredAt action actor { type id label } address target { type id } changes { field before after }';

export const auditRoutes = defineRoutes([
  {
    operationId: 'listAuditLog',
    method: 'GET',
    path: '/audit-log',
    tag: 'Audit log',
    summary: "The workspace's audit log, newest first",
    description:
      'Needs the scope `audit:read` and a key whose role is admin (403 `forbidden` otherwise). Every administrative action: API keys, webhook ' +
      'subscriptions and their secrets, sign-ins and failed sign-ins, sign-outs, the operator’s CLI commands; with who acted (`actor`), from ' +
      'which address, on what (`target`) and the changed fields before and after (never a secret). Kept 365 days unless the operator set ' +
      'another retention. Filters: `actorType` with `actorId`, `targetType` with `targetId`, `action`, `since` (inclusive), `until` ' +
      '(exclusive). Paged: `{data, nextCursor}`.',
    operation: pagedOperation('listAuditLog', 'auditLog', ENTRY_SELECTION, {
      actorType: '$actorType: AuditActorType',
      actorId: '$actorId: String',
      targetType: '$targetType: AuditTargetType',
      targetId: '$targetId: String',
      action: '$action: String',
      since: '$since: DateTime',
      until: '$until: DateTime',
    }),
    query: pageQuery.extend({
      actorType: z.enum(AUDIT_ACTOR_TYPES).optional().describe('Only actions of this kind of actor'),
      actorId: z.string().regex(/^[0-9]{1,10}$/).optional().describe('With actorType: the user id of a person, the key id of a key'),
      targetType: z.enum(AUDIT_TARGET_TYPES).optional().describe('Only actions on this kind of record'),
      targetId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional().describe('With targetType: the record’s id'),
      action: z.enum(AUDIT_ACTION_NAMES as [string, ...string[]]).optional().describe('Only this action'),
      since: dateTime('At or after this time (ISO 8601)').optional(),
      until: dateTime('Before this time (ISO 8601)').optional(),
    }),
    variables: ({ query }) => ({
      ...pageVariables(query),
      actorType: query.actorType ?? null,
      actorId: query.actorId ?? null,
      targetType: query.targetType ?? null,
      targetId: query.targetId ?? null,
      action: query.action ?? null,
      since: query.since ?? null,
      until: query.until ?? null,
    }),
    paged: true,
    codes: ['forbidden'],
    example: {
      data: [
        {
          id: 'aud_01JDZ8X2Q8M6V4P3K9T7R5W1YB',
          occurredAt: '2026-11-28T17:20:00.000Z',
          action: 'webhook_subscription.updated',
          actor: { type: 'api_key', id: '42', label: 'svc_Ab3dEf6hJk' },
          address: '203.0.113.7',
          target: { type: 'webhook_subscription', id: 'wh_01JDZ8W0B5C7D9E1F3G5H7J9KM' },
          changes: [{ field: 'boardIds', before: [], after: ['brd_01JDZ8V4N6P8Q0R2S4T6V8W0XY'] }],
        },
        {
          id: 'aud_01JDZ8W9ZKQ2N5R8T1V4X7A0CE',
          occurredAt: '2026-11-28T17:19:58.000Z',
          action: 'session.sign_in_failed',
          actor: { type: 'person', id: '7', label: 'admin@example.com' },
          address: '198.51.100.77',
          target: { type: 'user', id: '7' },
          changes: [],
        },
      ],
      nextCursor: null,
    },
  },
]);
