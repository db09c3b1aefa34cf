// GraphQL of the audit log: the `auditLog` connection (administrators; GET /public/v1/audit-log).
import { builder } from '../graphql/builder.ts';
import { AUDIT_ACTION_NAMES, AUDIT_ACTOR_TYPES, AUDIT_TARGET_TYPES } from './audit.actions.ts';
import type { AuditChange } from './audit.writer.ts';
import { auditService, type AuditEntryRow } from './audit.service.ts';

const enumValues = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, { value: n }]));

// GraphQL enum values cannot hold dots: the action filter is a string checked against the list.
const AuditActorTypeEnum = builder.enumType('AuditActorType', { values: enumValues(AUDIT_ACTOR_TYPES) });
const AuditTargetTypeEnum = builder.enumType('AuditTargetType', { values: enumValues(AUDIT_TARGET_TYPES) });

const AuditActor = builder.objectRef<AuditEntryRow>('AuditActor').implement({
  description: 'Who acted: a person (user id and e-mail), an API key (key id and prefix) or the operator (`npm run cli`)',
  fields: (t) => ({
    type: t.field({ type: AuditActorTypeEnum, resolve: (r) => r.actorType as never }),
    id: t.string({ nullable: true, description: 'The user id of a person, the key id of a key; null for the operator', resolve: (r) => r.actorId }),
    label: t.string({ description: "A person's e-mail, a key's prefix (never the key), `cli` for the operator", resolve: (r) => r.actorLabel }),
  }),
});

const AuditTarget = builder.objectRef<AuditEntryRow>('AuditTarget').implement({
  description: 'What the action was done to',
  fields: (t) => ({
    type: t.field({ type: AuditTargetTypeEnum, resolve: (r) => r.targetType as never }),
    id: t.string({ resolve: (r) => r.targetId }),
  }),
});

const AuditFieldChange = builder.objectRef<AuditChange>('AuditFieldChange').implement({
  description: 'One changed field, before and after (null: the record did not exist, or does not any more). Secrets are never recorded.',
  fields: (t) => ({
    field: t.exposeString('field'),
    before: t.field({ type: 'JSON', nullable: true, resolve: (c) => c.before }),
    after: t.field({ type: 'JSON', nullable: true, resolve: (c) => c.after }),
  }),
});

const AuditEntry = builder.objectRef<AuditEntryRow>('AuditEntry').implement({
  description: 'One administrative action in the workspace',
  fields: (t) => ({
    id: t.exposeString('id', { description: '`aud_` and a ULID' }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
    action: t.exposeString('action', { description: `One of: ${AUDIT_ACTION_NAMES.join(', ')}` }),
    actor: t.field({ type: AuditActor, resolve: (r) => r }),
    address: t.string({ nullable: true, description: 'The client address (as TRUSTED_PROXIES resolve it); null from the CLI', resolve: (r) => r.address }),
    target: t.field({ type: AuditTarget, resolve: (r) => r }),
    changes: t.field({ type: [AuditFieldChange], resolve: (r) => (Array.isArray(r.changes) ? (r.changes as unknown as AuditChange[]) : []) }),
  }),
});

builder.queryField('auditLog', (t) =>
  t.connection(
    {
      type: AuditEntry,
      description: "The workspace's audit log, newest first (kept AUDIT_LOG_RETENTION_DAYS, 365 by default). Administrators: a person with the admin role, or a key with `audit:read` whose role is admin.",
      // The scope here; the admin role in the service (the OpenAPI document states scopes only).
      authScopes: { scope: 'audit:read' },
      args: {
        actorType: t.arg({ type: AuditActorTypeEnum }),
        actorId: t.arg.string({ description: 'With actorType: the user id of a person, the key id of a key' }),
        targetType: t.arg({ type: AuditTargetTypeEnum }),
        targetId: t.arg.string({ description: 'With targetType' }),
        action: t.arg.string({ description: `One of: ${AUDIT_ACTION_NAMES.join(', ')}` }),
        since: t.arg({ type: 'DateTime', description: 'At or after this time' }),
        until: t.arg({ type: 'DateTime', description: 'Before this time' }),
      },
      resolve: (_root, { first, after, last, before, ...filter }, ctx) => auditService.list(ctx.principal!, filter, { first, after, last, before }),
    },
    { name: 'AuditEntryConnection' },
    { name: 'AuditEntryEdge' },
  ),
);
