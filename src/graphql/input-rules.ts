// What every GraphQL field checks before its resolver runs. REST routes run the same resolvers,
// so both paths meet the same rules (REST bodies and queries have already passed the same rules
// in their zod schemas, which name REST paths):
// - every argument value, at any depth, under the text rule and the time range (src/validation);
// - on a connection, `after` / `before` must be cursors this list signed; its answer's cursors
//   are signed on the way out (src/graphql/cursor.ts).
// Applied to the built schema by wrapping each field's resolver, outermost, so nothing (scope
// checks, Pothos's cursor decoding, services) sees input that breaks a rule.
import { defaultFieldResolver, getNamedType, isObjectType, type GraphQLField, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { AppError } from '../errors/errors.ts';
import { findInputFault, toFieldError } from '../validation/text.ts';
import type { GraphQLContext } from './context.ts';
import { cursorKey, invalidCursor, openCursor, signCursor } from './cursor.ts';

type Resolver = GraphQLFieldResolver<unknown, GraphQLContext, Record<string, unknown>>;

interface Connection {
  edges?: ({ cursor?: string } | null)[];
  pageInfo?: { startCursor?: string | null; endCursor?: string | null };
}

const CURSOR_ARGS = ['after', 'before'] as const;

function isConnection(field: GraphQLField<unknown, unknown>): boolean {
  const type = getNamedType(field.type);
  return field.args.some((a) => a.name === 'after') && isObjectType(type) && 'edges' in type.getFields() && 'pageInfo' in type.getFields();
}

const isThenable = (v: unknown): v is PromiseLike<unknown> => typeof (v as { then?: unknown } | null)?.then === 'function';
const then = <T, R>(value: T | PromiseLike<T>, f: (v: T) => R | PromiseLike<R>): R | PromiseLike<R> =>
  isThenable(value) ? (value as PromiseLike<T>).then(f) : f(value as T);

/**
 * A cursor is signed when it is read, once: a REST page reads only `endCursor`, and an HMAC per
 * edge (~5 µs each) was most of what signing cost a page of 50 rows.
 */
function signOnRead<F extends string>(holder: { [K in F]?: string | null }, field: F, key: Buffer, list: string) {
  const inner = holder[field];
  if (inner == null) return;
  let signed: string | undefined;
  Object.defineProperty(holder, field, { enumerable: true, configurable: true, get: () => (signed ??= signCursor(key, list, inner)) });
}

function signAll(key: Buffer, list: string, result: unknown): unknown {
  const connection = result as Connection | null;
  if (!connection) return result;
  for (const edge of connection.edges ?? []) if (edge) signOnRead(edge, 'cursor', key, list);
  const info = connection.pageInfo;
  if (info) {
    signOnRead(info, 'startCursor', key, list);
    signOnRead(info, 'endCursor', key, list);
  }
  return result;
}

function guard(list: string, connection: boolean, resolve: Resolver): Resolver {
  return (parent, args, ctx, info) => {
    const fault = findInputFault(args);
    if (fault) throw new AppError('validation_failed', 'An argument is not valid', { errors: [toFieldError(fault)] });
    if (!connection) return resolve(parent, args, ctx, info);
    return then(cursorKey(), (key) => {
      const opened = { ...args };
      for (const name of CURSOR_ARGS) {
        if (typeof args[name] !== 'string') continue;
        const inner = openCursor(key, list, args[name]);
        // REST routes take the cursor as `?cursor=`.
        if (inner === null) throw invalidCursor(ctx.restRoute ? 'query/cursor' : `/${name}`);
        opened[name] = inner;
      }
      return then(resolve(parent, opened, ctx, info) as unknown, (result) => signAll(key, list, result));
    });
  };
}

/** Wraps the resolver of every field with arguments; returns the same schema. */
export function applyInputRules(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.args.length) continue;
      field.resolve = guard(`${type.name}.${field.name}`, isConnection(field), (field.resolve ?? defaultFieldResolver) as Resolver);
    }
  }
  return schema;
}
