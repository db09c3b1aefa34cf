// The limits of /graphql documents (src/graphql/limits.ts, costs in src/graphql/complexity.ts),
// through the HTTP app: every hostile document of issue 10 is refused with 400 `query_too_complex`
// before anything runs, the service answers normally afterwards, and every operation the settings
// UI and the REST routes send passes the same checks. In production, introspection and guesses at
// names are for signed-in callers only.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  getIntrospectionQuery,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type GraphQLInputType,
  type OperationDefinitionNode,
} from 'graphql';
import { createApp } from '../../src/http/app.ts';
import { createGraphQLServer } from '../../src/api/yoga.ts';
import { costOf, documentRefusal, GRAPHQL_LIMITS } from '../../src/graphql/limits.ts';
import { schema } from '../../src/api/schema.ts';
import { routes } from '../../src/api/routes.ts';
import { MAX_PAGE_SIZE } from '../../src/paging/paging.ts';
import { ticketService } from '../../src/tickets/ticket.service.ts';
import * as ui from '../../web/src/api/operations.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { signInAdmin } from '../support/limits.ts';

const times = (n: number, part: (i: number) => string) => Array.from({ length: n }, (_, i) => part(i)).join(' ');
const TICKET_PAGE = 'tickets(first: 100) { edges { node { description } } }';

describe('hostile GraphQL documents', () => {
  const app = createApp({ graphql: createGraphQLServer({ production: true }) });
  let key: string;
  beforeAll(async () => {
    const ws = await createTestWorkspace('GraphQL limits');
    key = (await ws.key()).value;
  });

  async function expectRefused(body: { query: string; variables?: Record<string, unknown> }, rule: RegExp, withKey = false) {
    const res = await api('POST', '/graphql', { app, key: withKey ? key : undefined, body });
    expect(res.status, res.text).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(rule), extensions: { code: 'query_too_complex', status: 400 } })]);
  }

  it('refuses 150 aliased introspection queries (8 KB), anonymous or with a key', async () => {
    const query = `{ ${times(150, (i) => `q${i}: __schema { types { name fields { name } } }`)} }`;
    expect(query.length).toBeGreaterThan(7_000);
    await expectRefused({ query }, /at most 500 tokens/);
    await expectRefused({ query }, /at most 500 tokens/, true);
  });

  it('refuses 20,000 aliases of __typename (340 KB)', async () => {
    await expectRefused({ query: `{ ${times(20_000, (i) => `alias${i}: __typename`)} }` }, /at most 16384 characters/);
  });

  it('refuses 5,000 fragments', async () => {
    const query = `{ ...F0 } ${times(5_000, (i) => `fragment F${i} on Query { __typename ${i < 4_999 ? `...F${i + 1}` : ''} }`)}`;
    await expectRefused({ query }, /at most 16384 characters/);
  });

  it('refuses a selection 10,000 deep, and one 4,000 deep that is short enough, before the parser recurses', async () => {
    await expectRefused({ query: `{ ${'a{'.repeat(10_000)}b${'}'.repeat(10_000)} }` }, /at most 16384 characters/);
    await expectRefused({ query: `{${'a{'.repeat(4_000)}b${'}'.repeat(4_000)}}` }, /at most 500 tokens/);
  });

  it('refuses 1,000 aliases of a ticket page, and 16 aliases of anything', async () => {
    await expectRefused({ query: `{ ${times(1_000, (i) => `page${i}: ${TICKET_PAGE}`)} }` }, /at most 16384 characters/, true);
    await expectRefused({ query: `{ ${times(16, (i) => `me${i}: viewer { id }`)} }` }, /Aliases limit of 15 exceeded, found 16/, true);
  });

  it('refuses two full ticket pages before reading a ticket, with the page size literal or a variable', async () => {
    const list = vi.spyOn(ticketService, 'list');
    await expectRefused({ query: `{ a: ${TICKET_PAGE} b: ${TICKET_PAGE} }` }, /may cost at most 120000; it costs 200600/, true);
    await expectRefused(
      { query: 'query($n: Int) { a: tickets(first: $n) { edges { node { description } } } b: tickets(first: $n) { edges { node { description } } } }', variables: { n: 100 } },
      /may cost at most 120000/,
      true,
    );
    expect(list).not.toHaveBeenCalled();
    list.mockRestore();
  });

  it('refuses depth, directives and tokens beyond their limits', async () => {
    const nine = '__type(name: "Query") { fields { type { ofType { ofType { ofType { ofType { ofType { name } } } } } } } }';
    await expectRefused({ query: `{ ${nine} }` }, /Query depth limit of 8 exceeded, found 9/, true);
    await expectRefused({ query: `{ viewer { ${times(11, () => 'id @include(if: true)')} } }` }, /Directives limit of 10 exceeded, found 11/, true);
    await expectRefused({ query: `{ viewer { ${times(499, () => 'id')} } }` }, /at most 500 tokens/, true);
  });

  it('still answers afterwards: a full page of tickets, and the root type name', async () => {
    const page = await api('POST', '/graphql', { app, key, body: { query: `{ ${TICKET_PAGE} }` } });
    expect(page.status, page.text).toBe(200);
    expect(page.body).toEqual({ data: { tickets: { edges: expect.any(Array) } } });
    const typename = await api('POST', '/graphql', { app, body: { query: '{ __typename }' } });
    expect(typename.body).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('introspection and suggestions', () => {
  const production = createApp({ graphql: createGraphQLServer({ production: true }) });
  const development = createApp({ graphql: createGraphQLServer({ production: false }) });
  const introspection = { query: getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true }) };
  let key: string;
  let session: Record<string, string>;
  beforeAll(async () => {
    const ws = await createTestWorkspace('GraphQL introspection');
    key = (await ws.key()).value;
    session = await signInAdmin(production, ws.admin.email!);
  });

  it('refuses anonymous introspection in production with 401 unauthenticated, and allows __typename', async () => {
    for (const query of [introspection.query, '{ __type(name: "Query") { name } }']) {
      const res = await api('POST', '/graphql', { app: production, body: { query } });
      expect(res.status, res.text).toBe(401);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors[0]).toMatchObject({ message: 'Introspection needs a signed-in session or an API key', extensions: { code: 'unauthenticated', status: 401 } });
    }
    expect((await api('POST', '/graphql', { app: production, body: { query: '{ __typename }' } })).body).toEqual({ data: { __typename: 'Query' } });
  });

  it('answers GraphiQL’s introspection query to an API key and a session in production, and to anyone elsewhere', async () => {
    for (const res of [
      await api('POST', '/graphql', { app: production, key, body: introspection }),
      await api('POST', '/graphql', { app: production, headers: session, body: introspection }),
      await api('POST', '/graphql', { app: development, body: introspection }),
    ]) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.__schema.types.map((t: { name: string }) => t.name)).toContain('Ticket');
    }
  });

  it('keeps guesses at names from anonymous callers in production, not from signed-in ones', async () => {
    const misspelt = [
      { query: '{ viewr { id } }', guess: 'Did you mean "viewer"' },
      { query: '{ webhookDeliveries(subscriptionId: "x", status: succeded) { edges { node { id } } } }', guess: 'Did you mean the enum value "succeeded"' },
    ];
    for (const { query, guess } of misspelt) {
      const message = async (app: typeof production, opts: { key?: string }) =>
        (await api('POST', '/graphql', { app, ...opts, body: { query } })).body.errors[0].message as string;
      const anonymous = await message(production, {});
      expect(anonymous).toMatch(/does not exist|Cannot query field/);
      expect(anonymous).not.toContain('Did you mean');
      expect(await message(production, { key })).toContain(guess);
      expect(await message(development, {})).toContain(guess);
    }
  });
});

/** Variables an operation could be sent with, pages at their largest: `first`/`last` at the maximum, any other a value of its type. */
function largestVariables(operation: OperationDefinitionNode): Record<string, unknown> {
  const sample = (type: GraphQLInputType, name: string): unknown => {
    if (isNonNullType(type)) return sample(type.ofType, name);
    if (isListType(type)) return [sample(type.ofType, name)];
    // A @oneOf input takes exactly one member (the destination's): its first.
    if (isInputObjectType(type)) return Object.fromEntries(Object.values(type.getFields()).slice(0, type.isOneOf ? 1 : undefined).map((f) => [f.name, sample(f.type, f.name)]));
    if (isEnumType(type)) return type.getValues()[0].value;
    if (name === 'first' || name === 'last') return MAX_PAGE_SIZE;
    return ({ Int: 1, Float: 1, Boolean: true, DateTime: '2026-01-01T00:00:00.000Z', JSON: 'value' } as Record<string, unknown>)[type.name] ?? 'text';
  };
  return Object.fromEntries(
    (operation.variableDefinitions ?? []).map((v) => [v.variable.name.value, sample(typeFromAST(schema, v.type as never) as GraphQLInputType, v.variable.name.value)]),
  );
}

describe('what the settings UI and the REST routes send', () => {
  const yoga = createGraphQLServer({ production: true });
  const operations = [
    ...routes.map((r) => [`REST ${r.operationId}`, r.operation] as const),
    // The UI's documents are generated TypedDocumentStrings (String objects); what is sent is their text.
    ...Object.entries(ui).flatMap(([name, value]) => (value instanceof String && /^\s*(query|mutation)\b/.test(value.toString()) ? [[`UI ${name}`, value.toString()] as const] : [])),
  ];

  it('covers every REST route and the UI’s operations', () => {
    expect(operations.map(([name]) => name)).toEqual(expect.arrayContaining(['REST listTickets', 'REST listBoards', 'UI VIEWER', 'UI WEBHOOK_DELIVERIES', 'UI BOARDS']));
    expect(operations.length).toBeGreaterThan(routes.length);
  });

  it.each(operations)('%s passes every limit with its largest page', (_name, query) => {
    expect(documentRefusal(query)).toBeNull();
    const envelop = yoga.getEnveloped({ principal: null, credentials: 'none', requestId: 'limits', params: { query } } as never);
    const document: DocumentNode = envelop.parse(query);
    expect(envelop.validate(envelop.schema, document)).toEqual([]);
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    const cost = costOf({ schema, document, variableValues: largestVariables(operation) });
    // Above 0: the variables fitted, so the cost was measured rather than left to execution.
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBeLessThanOrEqual(GRAPHQL_LIMITS.cost);
  });
});
