// The OpenAPI document itself: valid OpenAPI 3.1, the checked-in copy current, the served copy
// the same, and the facts it states (scopes, headers, error codes) taken from the code that
// enforces them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';
import { routes } from '../../src/api/routes.ts';
import { errorTable } from '../../src/errors/errors.ts';
import { config } from '../../src/config.ts';
import { api } from '../support/fixtures.ts';
import { BROKER_TYPES, DESTINATION_TYPES } from '../../src/webhooks/message/destinations/settings.ts';
import { createWebhookInput } from '../../src/webhooks/subscriptions/webhook.service.ts';

const root = path.resolve(import.meta.dirname, '../..');
type Operation = { operationId: string; security: Record<string, string[]>[]; responses: Record<string, any>; parameters: { name: string; in: string }[] };

function operations(doc: ReturnType<typeof buildOpenApiDocument>) {
  return Object.values(doc.paths).flatMap((ops) => Object.values(ops as Record<string, Operation>));
}

describe('the OpenAPI document', () => {
  it('validates as OpenAPI 3.1', async () => {
    // The parser dereferences in place: hand it a copy.
    const result = await validate(structuredClone(buildOpenApiDocument()) as unknown as Parameters<typeof validate>[0]);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.specification).toBe('OpenAPI');
    expect(result.warnings).toEqual([]);
  });

  it('holds only schemas that are valid JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const doc = buildOpenApiDocument();
    const schemas: unknown[] = Object.values(doc.components.schemas);
    for (const hook of Object.values(doc.webhooks)) schemas.push(hook.post.requestBody.content['application/json'].schema);
    for (const op of operations(doc) as any[]) {
      for (const p of op.parameters) schemas.push(p.schema);
      for (const media of Object.values<{ schema: unknown }>(op.requestBody?.content ?? {})) schemas.push(media.schema);
      for (const r of Object.values<any>(op.responses)) {
        for (const [type, media] of Object.entries<{ schema: unknown }>(r.content ?? {})) {
          if (type === 'application/json') schemas.push(media.schema);
        }
      }
    }
    for (const s of schemas) expect(ajv.validateSchema(s as object), ajv.errorsText()).toBe(true);
  });

  it('is checked in as generated (npx tsx scripts/generate.ts)', () => {
    const checkedIn = fs.readFileSync(path.join(root, 'openapi.json'), 'utf8');
    expect(checkedIn).toBe(JSON.stringify(buildOpenApiDocument(), null, 2) + '\n');
  });

  it('is served at /public/v1/openapi.json, without a key, with the deployment’s base URL', async () => {
    const res = await api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toEqual(buildOpenApiDocument(config.http.publicBaseUrl));
    expect(res.body.servers).toEqual([{ url: config.http.publicBaseUrl }]);
  });

  it('has one operation per route, with a unique operationId', () => {
    const ids = operations(buildOpenApiDocument()).map((op) => op.operationId);
    expect(ids.sort()).toEqual(routes.map((r) => r.operationId).sort());
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('states the scopes of each operation as the GraphQL field’s authScopes enforce them', () => {
    const byId = Object.fromEntries(operations(buildOpenApiDocument()).map((op) => [op.operationId, op.security]));
    expect(byId.getMe).toEqual([{ bearer: [] }]);
    expect(byId.createTicket).toEqual([{ bearer: ['tickets:write'] }]);
    expect(byId.getTicket).toEqual([{ bearer: ['tickets:read'] }, { bearer: ['tickets:write'] }]);
    expect(byId.listBoards).toEqual([{ bearer: ['boards:read'] }, { bearer: ['tickets:read'] }, { bearer: ['tickets:write'] }]);
    expect(byId.listUsers).toEqual([{ bearer: ['users:read'] }]);
    expect(byId.createKnowledgeBaseArticle).toEqual([{ bearer: ['kb:write'] }]);
    expect(byId.listKnowledgeBaseArticles).toEqual([{ bearer: ['kb:read'] }, { bearer: ['kb:write'] }]);
  });

  it('documents every error code of the API, and each answer the codes of its own status as a plain enum', () => {
    const doc = buildOpenApiDocument() as any;
    const graphqlOnly = ['unauthenticated', 'csrf_failed', 'invalid_request', 'query_too_complex', 'too_many_mutations'];
    const rest = Object.keys(errorTable).filter((c) => !graphqlOnly.includes(c));
    for (const c of rest) expect(doc.info.description, c).toContain(`\`${c}\` ${errorTable[c as keyof typeof errorTable].status}`);
    for (const c of graphqlOnly) expect(doc.info.description).not.toContain(`\`${c}\``);
    const answered = new Set<string>();
    // Each response's schema (a Problem… component) narrows `code` to codes of its own status.
    for (const op of operations(doc)) {
      for (const [status, r] of Object.entries(op.responses)) {
        const media = r.content?.['application/problem+json'];
        if (!media) continue;
        const schema = doc.components.schemas[media.schema.$ref.replace('#/components/schemas/', '')];
        expect(schema.allOf ?? schema.oneOf, `${op.operationId} ${status}: no allOf/oneOf`).toBeUndefined();
        const codes: string[] = schema.properties.code.enum;
        codes.forEach((c) => answered.add(c));
        expect(codes.length, `${op.operationId} ${status}`).toBeGreaterThan(0);
        for (const c of codes) {
          const s = errorTable[c as keyof typeof errorTable].status;
          expect(status === '5XX' ? s >= 500 : String(s) === status, `${op.operationId} ${status} lists ${c}`).toBe(true);
        }
      }
    }
    // Every code but the path-level 405 and the unused ones is some operation's answer.
    expect([...answered].every((c) => rest.includes(c))).toBe(true);
  });

  it('documents the headers: request id and limits on all, Retry-After on 429, replay and 409 on idempotent routes, Link on pages', () => {
    const doc = buildOpenApiDocument() as any;
    for (const route of routes) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      const success = String(route.status ?? 200);
      for (const [status, r] of Object.entries<any>(op.responses)) {
        const names = Object.keys(r.headers ?? {});
        expect(names, `${route.operationId} ${status}`).toEqual(expect.arrayContaining(['X-Request-Id', 'RateLimit-Policy', 'RateLimit']));
        expect(names.includes('Retry-After'), `${route.operationId} ${status}`).toBe(status === '429');
        expect(names.includes('WWW-Authenticate'), `${route.operationId} ${status}`).toBe(status === '401' || status === '403');
        expect(names.includes('Link'), `${route.operationId} ${status}`).toBe(Boolean(route.paged) && status === success);
        if (status === success) expect(names.includes('Idempotent-Replayed'), route.operationId).toBe(Boolean(route.idempotent));
      }
      expect('409' in op.responses, route.operationId).toBe(Boolean(route.idempotent));
      expect(op.parameters.some((p: { name: string }) => p.name === 'Idempotency-Key'), route.operationId).toBe(Boolean(route.idempotent));
    }
    const createTicket = doc.paths['/tickets'].post;
    expect(createTicket.responses['409'].content['application/problem+json'].schema.$ref).toBe('#/components/schemas/ProblemIdempotencyRequestInProgress'); expect(doc.components.schemas.ProblemIdempotencyRequestInProgress.properties.code.enum).toEqual(['idempotency_request_in_progress']);
    expect(createTicket.responses['422'].content['application/problem+json'].schema.$ref).toBe('#/components/schemas/ProblemValidationFailedOrIdempotencyKeyReused'); expect(doc.components.schemas.ProblemValidationFailedOrIdempotencyKeyReused.properties.code.enum).toEqual(['validation_failed', 'idempotency_key_reused']);
    expect(doc.components.headers['X-Request-Id'].required).toBe(true);
    expect(doc.components.headers['Retry-After'].required).toBe(true);
  });

  it('gives GraphQL’s nullability to JSON: nullable members admit null; a JSON value is untyped (client generators refuse type lists)', () => {
    const doc = buildOpenApiDocument() as any;
    // The ticket representation is one component, the schema of every ticket answer and event.
    expect(doc.paths['/tickets/{id}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Ticket' });
    const ticket = doc.components.schemas.Ticket;
    const value = ticket.properties.fields.items.properties.value;
    const ajv = new Ajv2020();
    const check = ajv.compile(value);
    for (const v of ['Web', 3, true, ['a'], { a: 1 }]) expect(check(v), JSON.stringify(v)).toBe(true);
    expect(value.type).toBeUndefined();
    expect(value.description).toBeTruthy();
    const user = doc.paths['/users/{id}'].get.responses['200'].content['application/json'].schema;
    expect(user.properties.email.type).toEqual(['string', 'null']);
    expect(doc.paths['/users'].get.responses['200'].content['application/json'].schema.properties.nextCursor.type).toEqual(['string', 'null']);
  });

  it('gives a subscription’s destination as a oneOf of named schemas with a discriminator on type, each with examples the API accepts', () => {
    const doc = buildOpenApiDocument() as any;
    for (const [path, method] of [['/webhooks', 'post'], ['/webhooks/{id}', 'patch']]) {
      const destination = doc.paths[path][method].requestBody.content['application/json'].schema.properties.destination;
      const mapping: Record<string, string> = destination.discriminator.mapping;
      expect(destination.discriminator.propertyName).toBe('type');
      expect(Object.keys(mapping)).toEqual([...BROKER_TYPES]);
      expect(destination.oneOf).toEqual(Object.values(mapping).map(($ref) => ({ $ref })));
    }
    const mapping: Record<string, string> = doc.paths['/webhooks'].post.requestBody.content['application/json'].schema.properties.destination.discriminator.mapping;
    for (const [type, ref] of Object.entries(mapping)) {
      const component = doc.components.schemas[ref.replace('#/components/schemas/', '')];
      expect(component.properties.type).toEqual({ type: 'string', const: type });
      expect(component.examples.length).toBeGreaterThan(0);
      for (const example of component.examples) {
        expect(example.type).toBe(type);
        // The rules JSON Schema cannot state (URL forms) too: the body the route parses.
        expect(createWebhookInput.safeParse({ events: ['ticket.created'], destination: example }).error).toBeUndefined();
      }
    }
    // The answers: one member per type (https too), told apart by `type`, without credentials.
    const answered = doc.paths['/webhooks/{id}'].get.responses['200'].content['application/json'].schema.properties.destination;
    expect(answered.discriminator.propertyName).toBe('type');
    expect(Object.keys(answered.discriminator.mapping)).toEqual([...DESTINATION_TYPES]);
    for (const [type, ref] of Object.entries<string>(answered.discriminator.mapping)) {
      const member = doc.components.schemas[ref.replace('#/components/schemas/', '')];
      expect(member.properties.type).toEqual({ type: 'string', const: type });
      expect(member.properties).not.toHaveProperty('credentials');
    }
    expect(doc.paths['/webhooks'].get.responses['200'].content['application/json'].schema.properties.data.items.properties.destination).toEqual(answered);
  });
});
