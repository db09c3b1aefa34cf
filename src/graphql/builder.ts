// The Pothos builder: plugins and shared scalars only; no domain types live here.
import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ComplexityPlugin from '@pothos/plugin-complexity';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import { prisma } from '../db/db.ts';
import { AppError } from '../errors/errors.ts';
import type { ApiScope } from '../access/principal.ts';
import type { GraphQLContext } from './context.ts';
import { connectionComplexity, EDGES_COMPLEXITY } from './complexity.ts';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  AuthScopes: {
    authenticated: boolean;
    apiKey: boolean;
    scope: ApiScope;
    anyScope: ApiScope[];
    admin: boolean;
  };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  defaultFieldNullability: false,
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin, ComplexityPlugin],
  scopeAuth: {
    authScopes: (ctx) => ({
      authenticated: ctx.principal !== null,
      apiKey: ctx.principal?.kind === 'apiKey',
      scope: (s) => ctx.principal?.scopes.has(s) ?? false,
      anyScope: (list) => list.some((s) => ctx.principal?.scopes.has(s)),
      admin: ctx.principal?.role.isAdmin ?? false,
    }),
    unauthorizedError: (_parent, ctx, _info, result) => unauthorized(ctx, result.failure),
  },
  prisma: {
    client: prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    defaultConnectionFieldOptions: { complexity: connectionComplexity },
    edgesFieldOptions: { complexity: EDGES_COMPLEXITY },
  },
  // Costs only: /graphql checks the limit before execution starts (src/graphql/limits.ts);
  // `disabled` leaves the resolvers unwrapped, so REST's fixed operations pay nothing for it.
  complexity: { disabled: true },
});

function unauthorized(ctx: GraphQLContext, failure: AuthFailure): AppError {
  if (!ctx.principal) {
    return new AppError(ctx.credentials === 'bearer' ? 'invalid_token' : 'unauthenticated');
  }
  const scopes = [...new Set(scopeFailure(failure))];
  if (ctx.principal.kind === 'apiKey' && scopes.length) {
    return new AppError('insufficient_scope', `This call needs the scope ${scopes.join(' or ')}`, {
      headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scopes.join(' ')}"` },
    });
  }
  return new AppError('forbidden');
}

/** The scopes that would have passed a failed check. */
function scopeFailure(failure: AuthFailure): ApiScope[] {
  switch (failure.kind) {
    case AuthScopeFailureType.AuthScope:
      if (failure.scope === 'scope') return [failure.parameter as ApiScope];
      if (failure.scope === 'anyScope') return failure.parameter as ApiScope[];
      return [];
    case AuthScopeFailureType.AnyAuthScopes:
    case AuthScopeFailureType.AllAuthScopes:
      return failure.failures.flatMap(scopeFailure);
    default:
      return [];
  }
}

/** Exactly what Date#toISOString() gives for the years 0–9999. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp in UTC',
  // Representations carry timestamps already formatted by toISOString(): those pass as they are
  // (a list page has two per ticket); anything else is parsed and normalized to UTC.
  serialize: (v) => (v instanceof Date ? v.toISOString() : typeof v === 'string' && ISO_UTC.test(v) ? v : new Date(v).toISOString()),
  parseValue: (v) => {
    const d = new Date(String(v));
    if (Number.isNaN(d.getTime())) throw new AppError('validation_failed', 'Invalid DateTime');
    return d;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value',
  serialize: (v) => v,
  parseValue: (v) => v,
});

builder.queryType({});
builder.mutationType({});
