// The limits of JSON bodies (src/validation/request-body.ts) on REST and on /graphql, through the HTTP
// app: nesting deeper than 64 is refused before JSON.parse sees it (400 `invalid_json`), a /graphql
// body over 1 MiB is refused before Yoga reads it (413 `payload_too_large`), and the service
// answers normally afterwards.
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { assertJsonDepth, MAX_JSON_DEPTH } from '../../src/validation/request-body.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { ticketBody } from '../tickets/helpers.ts';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** The body of the finding: 400,000 arrays within each other, 800 KB (under the 1 MiB limit). */
const DEEP = nested(400_000);

function post(app: ReturnType<typeof createApp>, path: string, body: string, headers: Record<string, string> = {}) {
  const url = `http://localhost${path.startsWith('/graphql') ? '' : '/public/v1'}${path}`;
  return app.fetch(new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }));
}

describe('JSON nesting', () => {
  it(`allows ${MAX_JSON_DEPTH} levels, refuses one more, and does not count brackets inside strings`, () => {
    expect(() => assertJsonDepth(`{"a":${nested(MAX_JSON_DEPTH - 1)}}`, 'The body')).not.toThrow();
    expect(() => assertJsonDepth(`{"a":${nested(MAX_JSON_DEPTH)}}`, 'The body')).toThrow(`The body may nest arrays and objects at most ${MAX_JSON_DEPTH} deep`);
    expect(() => assertJsonDepth(JSON.stringify({ text: '[{'.repeat(1_000), quoted: '\\"[[[' }), 'The body')).not.toThrow();
    // A string that ends in a backslash ends there: the nesting after it counts.
    expect(() => assertJsonDepth(`{"a":"x\\\\","b":${nested(MAX_JSON_DEPTH)}}`, 'The body')).toThrow(/at most/);
  });
});

describe('JSON bodies on REST', () => {
  const app = createApp();
  let ws: Awaited<ReturnType<typeof createTestWorkspace>>;
  let key: string;
  beforeAll(async () => {
    ws = await createTestWorkspace('JSON limits');
    key = (await ws.key({ scopes: ['tickets:write'] })).value;
  });

  it('answers a body nested 400,000 deep (800 KB) to POST /tickets with 400 invalid_json, streamed or with Content-Length', async () => {
    expect(DEEP.length).toBe(800_000);
    for (const headers of [{}, { 'content-length': String(DEEP.length) }] as Record<string, string>[]) {
      const res = await post(app, '/tickets', DEEP, { authorization: `Bearer ${key}`, ...headers });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_json', detail: `The body may nest arrays and objects at most ${MAX_JSON_DEPTH} deep` });
    }
  });

  it('still creates a ticket afterwards', async () => {
    const res = await api('POST', '/tickets', { app, key, body: ticketBody(ws) });
    expect(res.status, res.text).toBe(201);
  });
});

describe('bodies on /graphql', () => {
  const app = createApp();
  const query = JSON.stringify({ query: '{ __typename }' });

  async function expectError(res: Response, status: number, code: string, message: string) {
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ errors: [{ message, extensions: { code, status } }] });
  }

  it('refuses 20 MB streamed, and 5 MiB declared in Content-Length, with 413 payload_too_large', async () => {
    const tooLarge = 'The body may be at most 1048576 bytes';
    await expectError(await post(app, '/graphql', ' '.repeat(20 * 1024 * 1024)), 413, 'payload_too_large', tooLarge);
    const declared = ' '.repeat(5 * 1024 * 1024);
    await expectError(await post(app, '/graphql', declared, { 'content-length': String(declared.length) }), 413, 'payload_too_large', tooLarge);
  });

  it('refuses a body nested 400,000 deep with 400 invalid_json', async () => {
    const body = `{"query":"{ __typename }","variables":{"a":${DEEP}}}`;
    await expectError(await post(app, '/graphql', body), 400, 'invalid_json', `The body may nest arrays and objects at most ${MAX_JSON_DEPTH} deep`);
  });

  it('refuses deep variables in a GET with 400 invalid_json', async () => {
    const url = `http://localhost/graphql?query=${encodeURIComponent('{ __typename }')}&variables=${encodeURIComponent(`{"a":${nested(100)}}`)}`;
    await expectError(await app.fetch(new Request(url)), 400, 'invalid_json', `The parameter \`variables\` may nest arrays and objects at most ${MAX_JSON_DEPTH} deep`);
  });

  it('takes JSON only, as REST does: a form body is 415 unsupported_media_type', async () => {
    const res = await post(app, '/graphql', 'query=%7B__typename%7D', { 'content-type': 'application/x-www-form-urlencoded' });
    await expectError(res, 415, 'unsupported_media_type', 'Send the body as JSON with `Content-Type: application/json`');
  });

  it('still answers a POST and a GET afterwards', async () => {
    expect(await (await post(app, '/graphql', query)).json()).toEqual({ data: { __typename: 'Query' } });
    const get = await app.fetch(new Request(`http://localhost/graphql?query=${encodeURIComponent('{ __typename }')}`));
    expect(await get.json()).toEqual({ data: { __typename: 'Query' } });
  });
});
