// GraphQL: the calling key's identity (`me`, GET /public/v1/me).
import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../graphql/builder.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { AppError } from '../errors/errors.ts';
import type { ApiKeyPrincipal } from '../access/principal.ts';
import { RoleSummary, WorkspaceInfo } from '../graphql/workspace-summaries.ts';
import { apiKeyService } from './api-key.service.ts';
import { fieldLimits, withFieldLimit } from '../rate-limit/field-limit.ts';
import { actorOf } from '../audit/audit.writer.ts';

const ApiKeyInfo = builder.objectRef<ApiKeyPrincipal['apiKey']>('ApiKeyInfo').implement({
  description: 'The API key making the call',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix', { description: '`svc_` and the identifying part; never the full key' }),
    scopes: t.exposeStringList('scopes'),
  }),
});

const ServiceUser = builder.objectRef<ApiKeyPrincipal['user']>('ServiceUser').implement({
  description: 'The service account the key acts as',
  fields: (t) => ({
    id: t.exposeInt('id'),
    userName: t.exposeString('userName'),
    fullName: t.exposeString('fullName'),
    roleId: t.exposeInt('roleId'),
  }),
});

const Limits = builder.objectRef<ApiKeyPrincipal['limits']>('KeyLimits').implement({
  fields: (t) => ({
    requestsPerMinute: t.exposeInt('requestsPerMinute'),
    maxWebhookSubscriptions: t.exposeInt('maxWebhookSubscriptions'),
  }),
});

const KeyIdentity = builder.objectRef<ApiKeyPrincipal>('KeyIdentity').implement({
  description: 'What GET /me returns: the key, its service account, the workspace and the limits',
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyInfo, resolve: (p) => p.apiKey }),
    serviceUser: t.field({ type: ServiceUser, resolve: (p) => p.user }),
    workspace: t.field({ type: WorkspaceInfo, resolve: (p) => p.workspace }),
    limits: t.field({ type: Limits, resolve: (p) => p.limits }),
  }),
});

builder.queryField('me', (t) =>
  t.field({
    type: KeyIdentity,
    description: 'The calling API key (API keys only; people use `viewer`)',
    authScopes: { apiKey: true },
    resolve: (_root, _args, ctx) => ctx.principal as ApiKeyPrincipal,
  }),
);

// Settings, Apps, API keys (administrators, through GraphQL).
const ApiKey = builder.prismaObject('ApiKey', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix'),
    scopes: t.exposeStringList('scopes'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    roleId: t.int({ select: { serviceUser: { select: { roleId: true } } }, resolve: (k) => k.serviceUser.roleId }),
    serviceUserId: t.exposeInt('serviceUserId'),
  }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    roleId: t.int({ required: true }),
    scopes: t.stringList({ required: true }),
    expiresAt: t.field({ type: 'DateTime', required: false }),
  }),
});

type CreatedApiKeyShape = { value: string; apiKey: Awaited<ReturnType<typeof apiKeyService.create>>['record'] };
const CreatedApiKey = builder.objectRef<CreatedApiKeyShape>('CreatedApiKey').implement({
  description: 'A new key; `value` is shown here once and never again',
  fields: (t) => ({
    value: t.exposeString('value'),
    apiKey: t.field({ type: ApiKey, resolve: (r) => r.apiKey }),
  }),
});

/**
 * Keys are managed by administrators, signed in, in the settings UI. A key never creates, lists
 * or revokes keys, whatever its role: a leaked key must not be able to mint successors.
 */
function keyManagers(_parent: unknown, _args: unknown, ctx: GraphQLContext) {
  if (ctx.principal?.kind === 'apiKey') {
    throw new AppError('forbidden', 'API keys cannot manage API keys; an administrator does this in the settings');
  }
  return { admin: true };
}

builder.mutationField('createApiKey', (t) =>
  t.field({
    type: CreatedApiKey,
    description: 'A new API key with its own service account (administrators, signed in; never an API key)',
    authScopes: keyManagers,
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: withFieldLimit(fieldLimits.createApiKey, async (_root, { input }, ctx) => {
      const p = ctx.principal!;
      const created = await apiKeyService.create(
        p.workspace.id,
        { name: input.name, role: input.roleId, scopes: input.scopes as never, expiresAt: input.expiresAt ?? null },
        p.kind === 'user' ? p.user.id : null,
        actorOf(p),
      );
      return { value: created.value, apiKey: created.record };
    }),
  }),
);

builder.mutationField('revokeApiKey', (t) =>
  t.boolean({
    description: 'Revokes an API key at once (administrators, signed in; never an API key)',
    authScopes: keyManagers,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      await apiKeyService.revoke(ctx.principal!.workspace.id, id, actorOf(ctx.principal!));
      return true;
    },
  }),
);

builder.prismaObjectField(ApiKey, 'role', (t) =>
  t.field({
    type: RoleSummary,
    description: "The role of the key's service account: what the key sees",
    select: { serviceUser: { select: { role: { select: { id: true, name: true } } } } },
    resolve: (k) => k.serviceUser.role,
  }),
);

builder.queryField('apiKeys', (t) =>
  t.connection({
    type: ApiKey,
    description: "The workspace's API keys, newest first, revoked ones included (administrators; never the key values)",
    authScopes: keyManagers,
    resolve: (_root, args, ctx, info) => apiKeyService.list(ctx.principal!.workspace.id, args, queryFromInfo({ context: ctx, info, path: ['edges', 'node'] })),
  }),
);
