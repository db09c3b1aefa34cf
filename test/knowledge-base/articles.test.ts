import { describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';

const ARTICLE_KEYS = ['id', 'title', 'body', 'status', 'tags', 'author', 'updatedBy', 'createdAt', 'updatedAt'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function gql(key: string, query: string, variables?: Record<string, unknown>) {
  const res = await api('POST', '/graphql', { key, body: { query, variables } });
  expect(res.status).toBe(200);
  return res.body as { data: any; errors?: { extensions: { code: string; errors?: { path: string }[] } }[] };
}

describe('POST /kb/articles and PATCH /kb/articles/{id}', () => {
  it('creates (201) and changes an article, attributing each change to the key’s service account', async () => {
    const ws = await createTestWorkspace();
    const writer = await ws.key({ name: 'Docs sync', scopes: ['kb:write'] });
    const editor = await ws.key({ name: 'Editor bot', scopes: ['kb:write'], role: ws.roles.agent.id });

    const created = await api('POST', '/kb/articles', {
      key: writer.value,
      body: { title: '  Resetting a password  ', body: 'Open Settings, then Security.', tags: ['account', 'password', 'account'] },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(ARTICLE_KEYS);
    const writerAccount = { id: writer.record.serviceUserId, name: 'Docs sync (API key)' };
    expect(created.body).toEqual({
      id: expect.any(Number),
      title: 'Resetting a password',
      body: 'Open Settings, then Security.',
      status: 'draft',
      tags: ['account', 'password'],
      author: writerAccount,
      updatedBy: writerAccount,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(writerAccount.id).not.toBe(ws.admin.id);

    const id = created.body.id;
    const changed = await api('PATCH', `/kb/articles/${id}`, { key: editor.value, body: { status: 'published', tags: [] } });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({
      ...created.body,
      status: 'published',
      tags: [],
      updatedBy: { id: editor.record.serviceUserId, name: 'Editor bot (API key)' },
      updatedAt: expect.stringMatching(ISO),
    });

    const read = await api('GET', `/kb/articles/${id}`, { key: writer.value });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(changed.body);
  });

  it('validates bodies strictly: 422 with errors[] paths', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['kb:write'] });
    const cases: [unknown, string[]][] = [
      [{ title: 'T', body: 'B', color: 'red', author: 1 }, ['/color', '/author']],
      [{ body: 'B' }, ['/title']],
      [{ title: '   ', body: 'B' }, ['/title']],
      [{ title: 'x'.repeat(201), body: 'B' }, ['/title']],
      [{ title: 'T', body: 'b'.repeat(100_001) }, ['/body']],
      [{ title: 'T', body: 'B', status: 'deleted' }, ['/status']],
      [{ title: 'T', body: 'B', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, ['/tags']],
      [{ title: 'T', body: 'B', tags: ['ok', 'y'.repeat(51)] }, ['/tags/1']],
      [{ title: 42, body: null }, ['/title', '/body']],
      [['T', 'B'], ['']],
    ];
    for (const [body, paths] of cases) {
      const res = await api('POST', '/kb/articles', { key: key.value, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    }

    const created = await api('POST', '/kb/articles', { key: key.value, body: { title: 'T', body: '' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    for (const [body, paths] of [
      [{}, ['']],
      [{ title: null }, ['/title']],
      [{ status: 'published', id: 5 }, ['/id']],
    ] as [unknown, string[]][]) {
      const res = await api('PATCH', `/kb/articles/${id}`, { key: key.value, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    }

    const malformed = await api('POST', '/kb/articles', { key: key.value, rawBody: '{"title": "T",', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('invalid_json');
    const notJson = await api('POST', '/kb/articles', { key: key.value, rawBody: 'title=T', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(notJson.status).toBe(415);
    // Nothing was written by the refused requests.
    const list = await api('GET', '/kb/articles', { key: key.value });
    expect(list.body.data.map((a: { id: number }) => a.id)).toEqual([id]);
  });

  it('answers 404 for unknown, foreign and odd ids', async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const key = await ws.key({ scopes: ['kb:write'] });
    const otherKey = await other.key({ scopes: ['kb:write'] });
    const foreign = await api('POST', '/kb/articles', { key: otherKey.value, body: { title: 'Theirs', body: 'B' } });
    for (const id of [String(foreign.body.id), '2147483647', '0', 'abc', '-3', '1.0', '99999999999']) {
      const get = await api('GET', `/kb/articles/${id}`, { key: key.value });
      expect(get.status, id).toBe(404);
      expect(get.body.code).toBe('not_found');
      const patch = await api('PATCH', `/kb/articles/${id}`, { key: key.value, body: { title: 'Mine now' } });
      expect(patch.status, id).toBe(404);
    }
    const untouched = await api('GET', `/kb/articles/${foreign.body.id}`, { key: otherKey.value });
    expect(untouched.body.title).toBe('Theirs');
  });

  it('needs kb:write to write and kb:read or kb:write to read (403 naming the scopes)', async () => {
    const ws = await createTestWorkspace();
    const reader = await ws.key({ scopes: ['kb:read'] });
    const writer = await ws.key({ scopes: ['kb:write'] });
    const none = await ws.key({ scopes: ['tickets:read', 'users:read'] });
    const article = await api('POST', '/kb/articles', { key: writer.value, body: { title: 'T', body: 'B' } });

    for (const [method, path, body] of [
      ['POST', '/kb/articles', { title: 'T', body: 'B' }],
      ['PATCH', `/kb/articles/${article.body.id}`, { title: 'U' }],
    ] as const) {
      const res = await api(method, path, { key: reader.value, body });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="kb:write"');
    }
    for (const path of ['/kb/articles', `/kb/articles/${article.body.id}`]) {
      expect((await api('GET', path, { key: reader.value })).status).toBe(200);
      expect((await api('GET', path, { key: writer.value })).status).toBe(200);
      const res = await api('GET', path, { key: none.value });
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="kb:read kb:write"');
    }
    expect((await api('GET', `/kb/articles/${article.body.id}`, { key: reader.value })).body.title).toBe('T');
  });
});

describe('writing needs a role that may change the knowledge base', () => {
  it('403 forbidden for a kb:write key whose role lacks kb.write, in REST and GraphQL, and nothing changes', async () => {
    const ws = await createTestWorkspace();
    const writer = await ws.key({ scopes: ['kb:write'], role: ws.roles.agent.id });
    const viewer = await ws.key({ scopes: ['kb:read', 'kb:write'], role: ws.roles.viewer.id });
    const article = await api('POST', '/kb/articles', { key: writer.value, body: { title: 'Original', body: 'B' } });
    expect(article.status, article.text).toBe(201);

    for (const [method, path, body] of [
      ['POST', '/kb/articles', { title: 'T', body: 'B' }],
      ['PATCH', `/kb/articles/${article.body.id}`, { title: 'Changed' }],
    ] as const) {
      const res = await api(method, path, { key: viewer.value, body });
      expect(res.status, res.text).toBe(403);
      expect(res.body.code).toBe('forbidden');
      expect(res.headers.get('www-authenticate')).toBeNull();
    }
    const viaGraphQL = await gql(viewer.value, 'mutation($input: CreateKnowledgeBaseArticleInput!) { createKnowledgeBaseArticle(input: $input) { id } }', {
      input: { title: 'T', body: 'B' },
    });
    expect(viaGraphQL.errors?.[0].extensions.code).toBe('forbidden');

    // The role still reads, and the article and the list are as the writer left them.
    const list = await api('GET', '/kb/articles', { key: viewer.value });
    expect(list.status).toBe(200);
    expect(list.body.data.map((a: { title: string }) => a.title)).toEqual(['Original']);
  });
});

describe('GET /kb/articles', () => {
  it('pages newest first and filters on status', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['kb:write'] });
    const ids: number[] = [];
    for (const [i, status] of ['draft', 'published', 'published', 'archived', 'published'].entries()) {
      const res = await api('POST', '/kb/articles', { key: key.value, body: { title: `A${i}`, body: 'B', status } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const newestFirst = [...ids].reverse();

    const seen: number[] = [];
    let path = '/kb/articles?limit=2';
    for (;;) {
      const res = await api('GET', path, { key: key.value });
      expect(res.status).toBe(200);
      for (const a of res.body.data) expect(Object.keys(a)).toEqual(ARTICLE_KEYS);
      seen.push(...res.body.data.map((a: { id: number }) => a.id));
      if (res.body.nextCursor === null) {
        expect(res.headers.get('link')).toBeNull();
        break;
      }
      const link = res.headers.get('link')!;
      expect(link).toMatch(/^<\/public\/v1\/kb\/articles\?limit=2&cursor=[^>]+>; rel="next"$/);
      path = link.slice('</public/v1'.length, link.indexOf('>'));
    }
    expect(seen).toEqual(newestFirst);

    const published = await api('GET', '/kb/articles?status=published&limit=2', { key: key.value });
    expect(published.body.data.map((a: { id: number }) => a.id)).toEqual([ids[4], ids[2]]);
    expect(published.headers.get('link')).toContain('status=published');
    const rest = await api('GET', published.headers.get('link')!.slice('</public/v1'.length, published.headers.get('link')!.indexOf('>')), { key: key.value });
    expect(rest.body).toEqual({ data: [expect.objectContaining({ id: ids[1], status: 'published' })], nextCursor: null });

    const bad = await api('GET', '/kb/articles?status=deleted', { key: key.value });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'query/status' })]);
    const badCursor = await api('GET', '/kb/articles?cursor=R1BDOlM6YWJj', { key: key.value });
    expect(badCursor.status).toBe(422);
  });
});

describe('GraphQL knowledge base', () => {
  it('creates, changes and reads articles through /graphql with the same rules', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ name: 'GQL', scopes: ['kb:write'] });
    const account = { id: key.record.serviceUserId, name: 'GQL (API key)' };
    const created = await gql(
      key.value,
      `mutation($input: CreateKnowledgeBaseArticleInput!) { createKnowledgeBaseArticle(input: $input) { id title status tags author { id name } updatedBy { id name } } }`,
      { input: { title: 'Refunds', body: 'How refunds work', status: 'published', tags: ['billing'] } },
    );
    expect(created.errors).toBeUndefined();
    const article = created.data.createKnowledgeBaseArticle;
    expect(article).toEqual({ id: expect.any(Number), title: 'Refunds', status: 'published', tags: ['billing'], author: account, updatedBy: account });

    const invalid = await gql(key.value, `mutation($id: Int!) { updateKnowledgeBaseArticle(id: $id, input: { title: "" }) { id } }`, { id: article.id });
    expect(invalid.errors?.[0].extensions.code).toBe('validation_failed');
    expect(invalid.errors?.[0].extensions.errors).toEqual([expect.objectContaining({ path: '/title' })]);

    const list = await gql(
      key.value,
      `query($id: Int!) { knowledgeBaseArticles(status: published) { edges { node { id body } } } knowledgeBaseArticle(id: $id) { id updatedBy { name } } }`,
      { id: article.id },
    );
    expect(list.data).toEqual({
      knowledgeBaseArticles: { edges: [{ node: { id: article.id, body: 'How refunds work' } }] },
      knowledgeBaseArticle: { id: article.id, updatedBy: { name: 'GQL (API key)' } },
    });

    const reader = await ws.key({ scopes: ['kb:read'] });
    const denied = await gql(reader.value, `mutation { createKnowledgeBaseArticle(input: { title: "T", body: "B" }) { id } }`);
    expect(denied.errors?.[0].extensions.code).toBe('insufficient_scope');
    expect(denied.data).toBeNull();
  });
});

describe('OpenAPI', () => {
  it('documents the article representation, the 201 and the strict bodies', () => {
    const doc = buildOpenApiDocument() as any;
    const post = doc.paths['/kb/articles'].post;
    const article = post.responses['201'].content['application/json'].schema;
    expect(Object.keys(article.properties)).toEqual(ARTICLE_KEYS);
    expect(Object.keys(article.properties.author.properties)).toEqual(['id', 'name']);
    expect(article.properties.status.enum.sort()).toEqual(['archived', 'draft', 'published']);
    expect(post.requestBody.content['application/json'].schema).toMatchObject({
      additionalProperties: false,
      required: ['title', 'body'],
      properties: { title: { maxLength: 200 }, tags: { maxItems: 20 } },
    });
    expect(doc.paths['/kb/articles/{id}'].patch.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(doc.paths['/kb/articles'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['limit', 'cursor', 'status']);
  });
});
