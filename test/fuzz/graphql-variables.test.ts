// A wrong value inside a GraphQL input object given as a variable is the caller's mistake: 400
// `invalid_request` naming the path, as the spec words coercion errors, never an internal error.
// Every mutation and query with an input-object argument is sent malformed variables (from the schema).
import { getNamedType, getNullableType, isInputObjectType, isNonNullType, isScalarType, type GraphQLArgument, type GraphQLInputObjectType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/api/schema.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';

/** Each root field with an argument whose type is an input object (possibly non-null). */
function fieldsWithInputObjects() {
  const out: { operation: 'query' | 'mutation'; field: string; arg: GraphQLArgument; fieldArgs: readonly GraphQLArgument[]; input: GraphQLInputObjectType }[] = [];
  for (const operation of ['query', 'mutation'] as const) {
    const root = operation === 'query' ? schema.getQueryType() : schema.getMutationType();
    for (const field of Object.values(root?.getFields() ?? {})) {
      for (const arg of field.args) {
        const named = getNamedType(arg.type);
        if (isInputObjectType(named) && isInputObjectType(getNullableType(arg.type))) out.push({ operation, field: field.name, arg, fieldArgs: field.args, input: named });
      }
    }
  }
  return out;
}

/** Malformed values of the input object: a required field null, a required field missing, and a wrong scalar. */
function malformed(input: GraphQLInputObjectType): { what: string; value: Record<string, unknown>; path: string }[] {
  const fields = Object.values(input.getFields());
  const cases: { what: string; value: Record<string, unknown>; path: string }[] = [];
  const required = fields.filter((f) => isNonNullType(f.type));
  if (required[0]) {
    cases.push({ what: `${required[0].name}: null`, value: { [required[0].name]: null }, path: required[0].name });
    cases.push({ what: `without ${required[0].name}`, value: {}, path: required[0].name });
  }
  const scalar = fields.find((f) => isScalarType(getNamedType(f.type)) && ['Int', 'Float', 'Boolean'].includes(getNamedType(f.type).name));
  if (scalar) cases.push({ what: `${scalar.name}: a string`, value: { [scalar.name]: 'not a number' }, path: scalar.name });
  const text = fields.find((f) => isScalarType(getNamedType(f.type)) && getNamedType(f.type).name === 'String');
  if (text) cases.push({ what: `${text.name}: an object`, value: { [text.name]: { nested: true } }, path: text.name });
  return cases;
}

describe('GraphQL variables inside input objects', () => {
  let key: string;
  beforeAll(async () => {
    key = (await (await createTestWorkspace()).key()).value;
  });

  it('the case of the report: createTicket with subject null answers 400 invalid_request naming the path', async () => {
    const res = await api('POST', '/graphql', {
      key,
      body: { query: 'mutation($input: CreateTicketInput!){createTicket(input:$input){id}}', variables: { input: { boardId: 'x', subject: null } } },
    });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('Internal error');
    expect(res.body.errors.length).toBeGreaterThan(0);
    for (const e of res.body.errors) expect(e.extensions.code).toBe('invalid_request');
    expect(res.body.errors.map((e: { message: string }) => e.message).join('\n')).toMatch(/\$input.*subject/);
  });

  const targets = fieldsWithInputObjects();
  it('finds the fields to send them to', () => {
    expect(targets.map((t) => t.field)).toEqual(expect.arrayContaining(['createTicket', 'createApiKey']));
  });

  it('answers every malformed input object with 400 invalid_request naming the path, never an internal error', async () => {
    const failures: string[] = [];
    for (const t of targets) {
      // The field's other required arguments, well formed (the record need not exist: coercion comes first).
      const others = t.fieldArgs.filter((a) => a !== t.arg && isNonNullType(a.type));
      const declared = [`$v: ${t.arg.type.toString()}`, ...others.map((a) => `$${a.name}: ${a.type.toString()}`)].join(', ');
      const passed = [`${t.arg.name}: $v`, ...others.map((a) => `${a.name}: $${a.name}`)].join(', ');
      const query = `${t.operation}(${declared}) { ${t.field}(${passed}) { __typename } }`;
      const placeholders = Object.fromEntries(others.map((a) => [a.name, getNamedType(a.type).name === 'Int' ? 1 : 'x']));
      for (const c of malformed(t.input)) {
        const res = await api('POST', '/graphql', { key, body: { query, variables: { ...placeholders, v: c.value } } });
        const codes = (res.body?.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
        const messages = (res.body?.errors ?? []).map((e: { message: string }) => e.message).join(' | ');
        if (res.status !== 400 || !codes.length || codes.some((code: string) => code !== 'invalid_request') || !messages.includes(c.path)) {
          failures.push(`${t.field} ${c.what}: ${res.status} ${codes.join(',')} ${messages.slice(0, 160)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
