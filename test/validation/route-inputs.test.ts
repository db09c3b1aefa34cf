// Walks every route of the table (src/api/routes.ts): each string, time and integer member of
// its path, query and body schemas gets hostile values (NUL, other C0 controls, unpaired
// surrogates, years PostgreSQL cannot hold, integers that are not plain decimal) and must be
// refused with a 422 naming the member (path parameters: 404, as for any id no record can have);
// never a 500. The members are read from the route table, so a new route or member is covered
// without touching this file.
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routes } from '../../src/api/routes.ts';
import type { RouteDef } from '../../src/rest/route.ts';
import { prisma } from '../../src/db/db.ts';
import { TEXT_PATTERN } from '../../src/validation/text.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';

type JsonSchema = {
  type?: string | string[];
  format?: string;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
};
type Kind = 'text' | 'string' | 'date-time' | 'integer' | 'any';
interface Member {
  path: (string | number)[];
  kind: Kind;
}

const underTextRule = (s: JsonSchema) => s.pattern === TEXT_PATTERN || !!s.allOf?.some((a) => a.pattern === TEXT_PATTERN);

function kindOf(s: JsonSchema): Kind | null {
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'integer') return 'integer';
  if (type === 'string') return s.format === 'date-time' ? 'date-time' : underTextRule(s) ? 'text' : 'string';
  if (type === undefined && !s.anyOf) return 'any';
  return null;
}

/** Every leaf member of a schema, arrays entered at index 0. */
function membersOf(s: JsonSchema, path: (string | number)[] = []): Member[] {
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'object') return Object.entries(s.properties ?? {}).flatMap(([name, p]) => membersOf(p, [...path, name]));
  if (type === 'array') return membersOf(s.items ?? {}, [...path, 0]);
  if (s.anyOf) return membersOf(s.anyOf.find((a) => a.type !== 'null') ?? {}, path);
  // A union by discriminator (a subscription's destination) needs its `type` to reach a member: its
  // members' hostile input is test/webhooks/destinations/destination-validation.test.ts's.
  if ((s as { oneOf?: unknown }).oneOf) return [];
  const kind = kindOf(s);
  return kind ? [{ path, kind }] : [];
}

const jsonSchemaOf = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** A value at `path` inside an otherwise empty body. */
function bodyWith(path: (string | number)[], value: unknown): unknown {
  if (!path.length) return value;
  const [head, ...rest] = path;
  return typeof head === 'number' ? [bodyWith(rest, value)] : { [head]: bodyWith(rest, value) };
}

const pointer = (path: (string | number)[]) => path.map((p) => `/${p}`).join('');

/** Path parameters that parse (no record needs to exist: input is checked before anything runs). */
function validParams(route: RouteDef): Record<string, string> {
  const props = route.params ? (jsonSchemaOf(route.params).properties ?? {}) : {};
  return Object.fromEntries(
    Object.entries(props).map(([name, s]) => {
      if (s.type === 'integer') return [name, '1'];
      const prefix = /\(\?:?(\w+)\|/.exec(s.pattern ?? '')?.[1] ?? /\^(\w+)_/.exec(s.pattern ?? '')?.[1];
      return [name, prefix ? `${prefix}_${'0'.repeat(26)}` : 'brd_x'];
    }),
  );
}

const pathOf = (route: RouteDef, params: Record<string, string>, query: Record<string, string> = {}) => {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]));
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
};

const HOSTILE_TEXT = ['a\u0000b', '\u0000', 'a\u0001b', 'a\u001bb', 'a\ud800b', '\udc00', 'x\udbff'];
const HOSTILE_QUERY_TEXT = ['a\u0000b', 'a\u0001b', 'a\u001fb'];
const HOSTILE_TIMES = ['0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '-000001-01-01T00:00:00Z', '10000-01-01T00:00:00Z'];
const HOSTILE_INTEGERS = ['0x10', '1e2', ' 5', '5 ', '+5', '05', '5.0', '-1', '١٢'];

let key: string;
beforeAll(async () => {
  const ws = await createTestWorkspace('Hostile input');
  const created = await ws.key({ name: 'Fuzzer' });
  // Hundreds of requests: more than a minute's default quota.
  await prisma.apiKey.update({ where: { id: created.record.id }, data: { requestsPerMinute: 100_000 } });
  key = created.value;
});

async function expect422(label: string, res: Awaited<ReturnType<typeof api>>, path: string, message?: RegExp) {
  expect(res.status, `${label}: ${res.text}`).toBe(422);
  expect(res.body.code, label).toBe('validation_failed');
  const entry = (res.body.errors as { path: string; message: string }[]).find((e) => e.path === path);
  expect(entry, `${label}: no error at ${path}: ${res.text}`).toBeDefined();
  if (message) expect(entry!.message, label).toMatch(message);
}

describe('every route refuses hostile input with a 422 naming the member', () => {
  const bodyMembers = routes.flatMap((route) => (route.body ? membersOf(jsonSchemaOf(route.body)).map((m) => ({ route, m })) : []));
  const queryMembers = routes.flatMap((route) => membersOf(jsonSchemaOf(route.query!)).map((m) => ({ route, m })));
  const paramMembers = routes.flatMap((route) => (route.params ? membersOf(jsonSchemaOf(route.params)).map((m) => ({ route, m })) : []));

  it('finds the members to try in the route table', () => {
    expect(bodyMembers.filter(({ m }) => m.kind === 'text').length).toBeGreaterThanOrEqual(15);
    expect(bodyMembers.filter(({ m }) => m.kind === 'any').length).toBeGreaterThanOrEqual(2); // custom field values
    expect(queryMembers.filter(({ m }) => m.kind === 'date-time').length).toBeGreaterThanOrEqual(3);
    // Every paged route's `limit`, plus GET /events' `ticketId`.
    expect(queryMembers.filter(({ m }) => m.kind === 'integer').length).toBe(routes.filter((r) => r.paged).length + 1);
    expect(paramMembers.filter(({ m }) => m.kind === 'integer').length).toBeGreaterThanOrEqual(5);
  });

  it('body members: NUL, control characters and unpaired surrogates', async () => {
    for (const { route, m } of bodyMembers) {
      if (m.kind === 'date-time' || m.kind === 'integer') continue;
      for (const value of HOSTILE_TEXT) {
        const label = `${route.operationId} ${pointer(m.path)} ${JSON.stringify(value)}`;
        const res = await api(route.method, pathOf(route, validParams(route)), { key, body: bodyWith(m.path, value) });
        // Enums and ids have their own, stricter rules; the text rule names itself where it decides.
        await expect422(label, res, pointer(m.path), m.kind === 'string' ? undefined : /text rule/);
      }
    }
  });

  it('strings nested inside custom field values, with the pointer to them', async () => {
    const value = { list: ['fine', { deeper: 'a\u0000' }] };
    const res = await api('POST', '/tickets', { key, body: { fields: [{ fieldId: 'fld_x', value }] } });
    await expect422('nested value', res, '/fields/0/value/list/1/deeper', /text rule/);
  });

  it('body member names under the text rule too', async () => {
    for (const route of routes.filter((r) => r.body)) {
      const res = await api(route.method, pathOf(route, validParams(route)), { key, body: { 'a\u0000': 1 } });
      expect(res.status, route.operationId).toBe(422);
    }
  });

  it('query members: text, times outside the years 1-9999, integers not in plain decimal', async () => {
    for (const { route, m } of queryMembers) {
      const name = String(m.path[0]);
      const values = m.kind === 'date-time' ? HOSTILE_TIMES : m.kind === 'integer' ? HOSTILE_INTEGERS : HOSTILE_QUERY_TEXT;
      const message = m.kind === 'date-time' ? /years 1 and 9999|ISO 8601/ : m.kind === 'integer' ? /decimal integer|at least/ : m.kind === 'text' ? /text rule/ : undefined;
      for (const value of values) {
        const res = await api(route.method, pathOf(route, validParams(route), { [name]: value }), { key, body: route.body ? {} : undefined });
        await expect422(`${route.operationId} ?${name}=${JSON.stringify(value)}`, res, `query/${name}`, message);
      }
    }
  });

  it('path parameters that no record can have answer 404, never 500', async () => {
    for (const { route, m } of paramMembers) {
      const values = m.kind === 'integer' ? HOSTILE_INTEGERS : HOSTILE_QUERY_TEXT;
      for (const value of values) {
        const params = { ...validParams(route), [String(m.path[0])]: value };
        const res = await api(route.method, pathOf(route, params), { key, body: route.body ? {} : undefined });
        expect(res.status, `${route.operationId} {${m.path[0]}}=${JSON.stringify(value)}: ${res.text}`).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
    }
  });
});
