// JSON Schemas of the OpenAPI document: a route's success body derived from its GraphQL selection,
// its scopes from its field's authScopes, its inputs from their zod schemas, and the representations
// several operations and the webhooks share (components).
import { z } from 'zod';
import {
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  Kind,
  OperationTypeNode,
  parse,
  type GraphQLField,
  type GraphQLOutputType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type GraphQLObjectType,
  type GraphQLUnionType,
} from 'graphql';
import { schema } from './schema.ts';
import { routes } from './routes.ts';
import type { RouteDef } from '../rest/route.ts';

export type JsonSchema = Record<string, unknown>;

/**
 * A GraphQL `JSON` value: any JSON value, so no `type` (client generators take a list of five
 * types, `array` without `items`, badly; oapi-codegen refuses it). A `JSON!` is never null.
 */
const ANY_JSON: JsonSchema = { description: 'Any JSON value' };

const scalarSchemas: Record<string, JsonSchema> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  ID: { type: 'string' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: ANY_JSON,
};

/** The schema that also admits null: `type` lists gain `null` (OpenAPI 3.1 has no `nullable`). */
function orNull(s: JsonSchema): JsonSchema {
  // Untyped admits null already.
  if (s === ANY_JSON) return s;
  if (typeof s.type === 'string' || Array.isArray(s.type)) {
    return { ...s, type: [s.type, 'null'].flat(), ...(Array.isArray(s.enum) ? { enum: [...(s.enum as unknown[]), null] } : {}) };
  }
  return { anyOf: [s, { type: 'null' }] };
}

function outputSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined): JsonSchema {
  if (isNonNullType(type)) return outputSchema(type.ofType, selection);
  if (isListType(type)) return { type: 'array', items: nullableOf(type.ofType, selection) };
  if (isScalarType(type)) return scalarSchemas[type.name] ?? {};
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.value as unknown) };
  if (isObjectType(type)) return objectSchema(type, selection);
  if (isUnionType(type)) return unionSchema(type, selection);
  return {};
}

const COMPONENTS = '#/components/schemas/';

/** How a union tells its members apart in JSON: a field and, for each of its values, the member type's name. */
interface UnionDiscriminator {
  propertyName: string;
  mapping: Record<string, string>;
}

/** Each union member's schema, by type name: a component, the same in every answer that holds it. */
const unionMembers = new Map<string, { schema: JsonSchema; text: string }>();

/**
 * A union: a `oneOf` of its members, each a component named after its GraphQL type whose
 * discriminating field is the constant of its tag (the union's `extensions.discriminator`, which
 * the document needs: GraphQL's `__typename` is not in the JSON). The selection must select every
 * member, each with the same fields wherever the union is answered.
 */
function unionSchema(type: GraphQLUnionType, selection: SelectionSetNode | undefined): JsonSchema {
  const tagged = type.extensions.discriminator as UnionDiscriminator | undefined;
  const fail = (why: string) => new Error(`the union ${type.name} ${why}`);
  if (!tagged) throw fail('needs extensions.discriminator ({propertyName, mapping: {tag: member type}}) to be documented');
  const mapping: Record<string, string> = {};
  for (const [tag, name] of Object.entries(tagged.mapping)) {
    const member = type.getTypes().find((t) => t.name === name);
    const fragment = selection?.selections.find((s) => s.kind === Kind.INLINE_FRAGMENT && s.typeCondition?.name.value === name);
    if (!member || fragment?.kind !== Kind.INLINE_FRAGMENT) throw fail(`is answered without \`... on ${name}\``);
    const object = objectSchema(member, fragment.selectionSet) as { properties: Record<string, JsonSchema> };
    if (!object.properties[tagged.propertyName]) throw fail(`is answered without \`${tagged.propertyName}\` of ${name}`);
    object.properties[tagged.propertyName] = { type: 'string', const: tag };
    const text = JSON.stringify(object);
    if ((unionMembers.get(name)?.text ?? text) !== text) throw fail(`is answered with other fields of ${name} elsewhere: one component holds them`);
    unionMembers.set(name, { schema: { ...object, ...(member.description ? { description: member.description } : {}) }, text });
    mapping[tag] = COMPONENTS + name;
  }
  if (type.getTypes().length !== Object.keys(mapping).length) throw fail('has members its discriminator does not name');
  return { oneOf: Object.values(mapping).map(($ref) => ({ $ref })), discriminator: { propertyName: tagged.propertyName, mapping } };
}

function nullableOf(type: GraphQLOutputType, selection: SelectionSetNode | undefined): JsonSchema {
  const inner = outputSchema(type, selection);
  return isNonNullType(type) ? inner : orNull(inner);
}

function objectSchema(type: GraphQLObjectType, selection: SelectionSetNode | undefined): JsonSchema {
  const fields = type.getFields();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const sel of selection?.selections ?? []) {
    if (sel.kind !== Kind.FIELD || sel.name.value === '__typename') continue;
    const field = fields[sel.name.value];
    const name = sel.alias?.value ?? sel.name.value;
    properties[name] = { ...nullableOf(field.type, sel.selectionSet), ...(field.description ? { description: field.description } : {}) };
    required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The route's GraphQL root field and its selection. */
function rootFieldOf(route: RouteDef): { field: GraphQLField<unknown, unknown>; selection: SelectionSetNode | undefined } {
  const op = parse(route.operation).definitions[0] as OperationDefinitionNode;
  const rootType = op.operation === OperationTypeNode.MUTATION ? schema.getMutationType()! : schema.getQueryType()!;
  const sel = op.selectionSet.selections[0];
  if (sel.kind !== Kind.FIELD) throw new Error(`route ${route.operationId}: the root selection must be a field`);
  return { field: rootType.getFields()[sel.name.value], selection: sel.selectionSet };
}

export const isMutation = (route: RouteDef) => (parse(route.operation).definitions[0] as OperationDefinitionNode).operation === OperationTypeNode.MUTATION;

/** The JSON schema of a route's success body, derived from its GraphQL selection. */
export function responseSchema(route: RouteDef): JsonSchema {
  const { field, selection } = rootFieldOf(route);
  if (!route.paged) return outputSchema(field.type, selection);
  const itemSchema = route.itemSchema;
  // Connection: edges { node { … } } becomes data: [ … ].
  const edges = selection?.selections.find((s) => s.kind === Kind.FIELD && s.name.value === 'edges');
  const node = edges?.kind === Kind.FIELD ? edges.selectionSet?.selections.find((s) => s.kind === Kind.FIELD && s.name.value === 'node') : undefined;
  const connection = getNamedType(field.type) as GraphQLObjectType;
  const edgeType = getNamedType(connection.getFields().edges.type) as GraphQLObjectType;
  const nodeType = edgeType.getFields().node.type;
  return {
    type: 'object',
    properties: {
      data: { type: 'array', items: itemSchema ?? outputSchema(nodeType, node?.kind === Kind.FIELD ? node.selectionSet : undefined) },
      nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page' },
    },
    required: ['data', 'nextCursor'],
    additionalProperties: false,
  };
}

/**
 * The scopes a route needs, as alternatives (any one suffices); `[[]]` means any valid key.
 * Read from the Pothos `authScopes` of the route's root field, the rule that enforces them, so
 * the document cannot drift from it. Only static scope maps can be documented.
 */
export function scopeAlternatives(route: RouteDef): string[][] {
  const { field } = rootFieldOf(route);
  const authScopes = (field.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions?.authScopes;
  const fail = (why: string) => new Error(`route ${route.operationId}: the field ${field.name} ${why}; the OpenAPI document states each route's scopes`);
  if (!authScopes || typeof authScopes !== 'object') throw fail('needs an authScopes object (a function cannot be documented)');
  const alternatives: string[][] = [];
  for (const [name, value] of Object.entries(authScopes)) {
    if (name === 'scope' && typeof value === 'string') alternatives.push([value]);
    else if (name === 'anyScope' && Array.isArray(value)) alternatives.push(...value.map((s: string) => [s]));
    else if ((name === 'apiKey' || name === 'authenticated') && value === true) alternatives.push([]);
    else throw fail(`uses the scope rule \`${name}\`, which the document cannot express`);
  }
  return alternatives.some((a) => a.length === 0) ? [[]] : alternatives;
}

/**
 * The options of every zod conversion. A discriminated union whose members are named (`.meta({ id
 * })`) gets OpenAPI's `discriminator`, so client generators pick the member by its tag.
 */
const zodToJson = {
  target: 'draft-2020-12',
  io: 'input',
  unrepresentable: 'any',
  override: ({ zodSchema, jsonSchema }) => {
    if (jsonSchema.type === 'integer') delete jsonSchema.pattern;
    // zod leaves the default out when it is of the parsed type (a number) rather than the input's.
    if (zodSchema instanceof z.ZodDefault && jsonSchema.default === undefined) jsonSchema.default = zodSchema.def.defaultValue;
    if (zodSchema instanceof z.ZodDiscriminatedUnion) {
      const { discriminator, options } = zodSchema.def;
      const mapping: Record<string, string> = {};
      for (const option of options) {
        const tag: unknown = (option as z.ZodObject).shape[discriminator];
        const id = z.globalRegistry.get(option)?.id;
        if (!(tag instanceof z.ZodLiteral) || !id) return;
        mapping[String(tag.value)] = COMPONENTS + id;
      }
      jsonSchema.discriminator = { propertyName: discriminator, mapping };
    }
  },
} satisfies Parameters<typeof z.toJSONSchema>[1];

/** `$ref`s to zod's `$defs` made references to the components of the same name (namedSchemas). */
function refsToComponents(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(refsToComponents);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, k === '$ref' && typeof x === 'string' && x.startsWith('#/$defs/') ? COMPONENTS + x.slice('#/$defs/'.length) : refsToComponents(x)]),
  );
}

/**
 * zod's JSON Schema without `$schema`: in OpenAPI 3.1 every schema already is 2020-12. An
 * integer read from text (decimalInteger, intIdParam) is declared as what it is, `type:
 * integer`, without the digits pattern of its text form, and with its default. A part named with
 * `.meta({ id })` is a `$ref` to its component (namedSchemas).
 */
export function toJsonSchema(s: z.ZodType): JsonSchema {
  const { $schema: _dialect, $defs: _named, ...rest } = z.toJSONSchema(s, zodToJson) as JsonSchema;
  return refsToComponents(rest) as JsonSchema;
}

/**
 * The schemas the document names besides the problems and representations: the input schemas
 * named with `.meta({ id })` (the broker destinations, their credentials) and the union members
 * of the answers (unionSchema; complete once every route's answer was derived).
 */
export function namedSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { ...zodToJson, uri: (id) => COMPONENTS + id });
  return {
    ...Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema as JsonSchema])),
    ...Object.fromEntries([...unionMembers].map(([name, { schema }]) => [name, schema])),
  };
}

/**
 * Representations shared by several operations and by the webhooks, as components: the success
 * schema of the named route (its items when paged), derived like every other.
 */
const SHARED_REPRESENTATIONS = { Ticket: 'getTicket', Comment: 'addTicketComment' } as const;

let sharedSchemas: { name: string; schema: JsonSchema; text: string }[] | undefined;
export function representations() {
  return (sharedSchemas ??= Object.entries(SHARED_REPRESENTATIONS).map(([name, operationId]) => {
    const schema = responseSchema(routes.find((r) => r.operationId === operationId)!);
    return { name, schema, text: JSON.stringify(schema) };
  }));
}

/** Each subschema equal to a shared representation becomes a `$ref` to its component. */
export function withComponentRefs(s: JsonSchema): JsonSchema {
  const shared = representations().find((r) => r.text === JSON.stringify(s));
  if (shared) return { $ref: `#/components/schemas/${shared.name}` };
  const walk = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(walk) : v && typeof v === 'object' ? withComponentRefs(v as JsonSchema) : v;
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, walk(v)]));
}
