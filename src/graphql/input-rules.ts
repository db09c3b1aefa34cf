// What every GraphQL field checks before its resolver runs. REST routes run the same resolvers,
// so both paths meet the same rules (REST bodies and queries have already passed the same rules
// in their zod schemas, which name REST paths):
// - every argument value, at any depth, under the text rule and the time range (src/validation);
// - on a connection, `after` / `before` must be cursors this list signed; its answer's cursors
//   are signed on the way out (src/paging/cursor.ts).
// Applied to the built schema by wrapping each field's resolver, outermost, so nothing (scope
// checks, the pager's cursor decoding, services) sees input that breaks a rule.
import { defaultFieldResolver, getNamedType, isObjectType, type GraphQLField, type GraphQLFieldMap, type GraphQLFieldResolver, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { AppError } from '../errors/errors.ts';
import { findInputFault, toFieldError } from '../validation/text.ts';
import type { GraphQLContext } from './context.ts';
import { cursorKey, invalidCursor, openCursor, signCursor } from '../paging/cursor.ts';

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
  isThenable(value) ? (value).then(f) : f(value);

/**
 * How a connection's answer signs its cursors: set on its edges and its pageInfo, read by the
 * resolvers of `cursor`, `startCursor` and `endCursor` (signedCursorField), so a cursor is signed
 * only when the document selects it. A REST page selects only `endCursor`, and an HMAC per edge
 * (~5 µs each) was most of what signing cost a page of 50 rows. A plain symbol-keyed property,
 * not a getter per edge: Object.defineProperty turned every edge into a slow dictionary object.
 */
const SIGN = Symbol('sign cursor');
type Signed = { [SIGN]?: (inner: string) => string };

function markForSigning(key: Buffer, list: string, result: unknown): unknown {
  const connection = result as Connection | null;
  if (!connection) return result;
  const sign = (inner: string) => signCursor(key, list, inner);
  for (const edge of connection.edges ?? []) if (edge) (edge as Signed)[SIGN] = sign;
  if (connection.pageInfo) (connection.pageInfo as Signed)[SIGN] = sign;
  return result;
}

/** A cursor field answers its holder's cursor signed; unmarked (no guarded connection made it), as it is, which no list then accepts. */
function signedCursorField(field: GraphQLField<unknown, GraphQLContext>) {
  if ((field.resolve as { [SIGN]?: true } | undefined)?.[SIGN]) return;
  const resolve = (field.resolve ?? defaultFieldResolver) as Resolver;
  const signed: Resolver = (parent, args, ctx, info) => {
    const value = resolve(parent, args, ctx, info);
    const sign = (parent as Signed | null)?.[SIGN];
    return sign && typeof value === 'string' ? sign(value) : value;
  };
  field.resolve = Object.assign(signed, { [SIGN]: true as const });
}

/** A type's fields as our schema's (graphql-js types them with `any` source and context). */
const fieldsOf = (type: GraphQLObjectType): GraphQLFieldMap<unknown, GraphQLContext> => type.getFields() as GraphQLFieldMap<unknown, GraphQLContext>;

/** The cursor fields of a connection type: its edges' `cursor`, its pageInfo's `startCursor` and `endCursor`. */
function signCursorFieldsOf(connectionType: GraphQLObjectType) {
  const fields = connectionType.getFields();
  const edgeType = fields.edges && getNamedType(fields.edges.type);
  const infoType = fields.pageInfo && getNamedType(fields.pageInfo.type);
  if (isObjectType(edgeType) && edgeType.getFields().cursor) signedCursorField(fieldsOf(edgeType).cursor);
  if (isObjectType(infoType)) {
    for (const name of ['startCursor', 'endCursor']) {
      const field = fieldsOf(infoType)[name];
      if (field) signedCursorField(field);
    }
  }
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
      return then(resolve(parent, opened, ctx, info), (result) => markForSigning(key, list, result));
    });
  };
}

/** Wraps the resolver of every field with arguments; returns the same schema. */
export function applyInputRules(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.args.length) continue;
      const connection = isConnection(field);
      field.resolve = guard(`${type.name}.${field.name}`, connection, (field.resolve ?? defaultFieldResolver) as Resolver);
      if (connection) signCursorFieldsOf(getNamedType(field.type) as GraphQLObjectType);
    }
  }
  return schema;
}
