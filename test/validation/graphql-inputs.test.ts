// The same input rules on /graphql, where input does not pass through the REST schemas: the text
// rule and the years at every depth of every argument (variables and literals alike), and paging
// cursors that only the list that issued them accepts. Each refusal is `validation_failed` with a
// JSON pointer into the arguments, and names no library.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { createWebhook } from './support.ts';
import { SIGNED_CURSOR } from '../../src/paging/cursor.ts';

let key: string;
let boardId: string;
beforeAll(async () => {
  const ws = await createTestWorkspace('GraphQL inputs');
  key = (await ws.key({ name: 'GraphQL' })).value;
  boardId = ws.boards[0].id;
});

async function gql(query: string, variables: Record<string, unknown> = {}, withKey = true) {
  const res = await api('POST', '/graphql', { key: withKey ? key : undefined, body: { query, variables } });
  expect(res.status, res.text).toBe(200);
  return res.body as { data?: Record<string, any> | null; errors?: { message: string; extensions: { code: string; errors?: { path: string; message: string }[] } }[] };
}

function expectRefused(body: Awaited<ReturnType<typeof gql>>, path: string, message: RegExp) {
  const error = body.errors?.[0];
  expect(error?.extensions.code, JSON.stringify(body)).toBe('validation_failed');
  expect(error?.extensions.errors).toEqual([{ path, message: expect.stringMatching(message) }]);
}

const CREATE_TICKET = 'mutation($input: CreateTicketInput!) { createTicket(input: $input) { id subject } }';
const ticketInput = (extra: Record<string, unknown>) => ({ boardId, subject: 'Hello', requesterEmail: 'a@example.com', ...extra });

describe('the text rule on GraphQL arguments', () => {
  it('refuses NUL, controls and unpaired surrogates in variables, at any depth', async () => {
    expectRefused(await gql(CREATE_TICKET, { input: ticketInput({ subject: 'a\u0000b' }) }), '/input/subject', /text rule: contains U\+0000 \(NUL\)/);
    expectRefused(await gql(CREATE_TICKET, { input: ticketInput({ description: 'x\ud800' }) }), '/input/description', /unpaired surrogate U\+D800/);
    expectRefused(
      await gql(CREATE_TICKET, { input: ticketInput({ fields: [{ fieldId: 'fld_x', value: { deep: [['ok', 'a\u0007']] } }] }) }),
      '/input/fields/0/value/deep/0/1',
      /control character U\+0007/,
    );
    const article = 'mutation($input: CreateKnowledgeBaseArticleInput!) { createKnowledgeBaseArticle(input: $input) { id } }';
    expectRefused(await gql(article, { input: { title: 'T', body: 'B', tags: ['fine', '\u0000'] } }), '/input/tags/1', /text rule/);
  });

  it('refuses them in literals of the document too', async () => {
    const body = await gql(`mutation { createTicket(input: { boardId: "${boardId}", subject: "a\\u0000b", requesterEmail: "a@example.com" }) { id } }`);
    expectRefused(body, '/input/subject', /text rule/);
  });

  it('applies before sign-in, whose input no REST schema sees', async () => {
    const body = await gql('mutation($e: String!) { signIn(email: $e, password: "x") { csrfToken } }', { e: 'admin\u0000@example.test' }, false);
    expectRefused(body, '/email', /text rule/);
  });

  it('accepts tabs, line breaks, astral characters and noncharacters', async () => {
    const text = 'line 1\r\n\tline 2 😀 \uFFFE \u007F';
    const article = 'mutation($input: CreateKnowledgeBaseArticleInput!) { createKnowledgeBaseArticle(input: $input) { body } }';
    const body = await gql(article, { input: { title: 'Fine', body: text } });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect(body.data?.createKnowledgeBaseArticle.body).toBe(text);
  });
});

describe('times on GraphQL arguments', () => {
  it('refuses years PostgreSQL cannot hold (0 and before) with 422, not a server error', async () => {
    const wh = await createWebhook(key);
    const query = 'query($id: String!, $since: DateTime) { webhookDeliveries(subscriptionId: $id, since: $since) { edges { node { id } } } }';
    expectRefused(await gql(query, { id: wh, since: '0000-01-01T00:00:00Z' }), '/since', /years 1 and 9999/);
    expect((await gql(query, { id: wh, since: '0001-01-01T00:00:00Z' })).errors).toBeUndefined();
  });
});

describe('paging cursors', () => {
  const LIST = 'query($after: String) { webhookSubscriptions(first: 1, after: $after) { edges { node { id } } pageInfo { endCursor hasNextPage } } }';

  it('pages on with the cursors a list gives out', async () => {
    await createWebhook(key);
    await createWebhook(key);
    const first = await gql(LIST);
    const page = first.data!.webhookSubscriptions;
    expect(page.pageInfo.hasNextPage).toBe(true);
    const second = await gql(LIST, { after: page.pageInfo.endCursor });
    expect(second.errors).toBeUndefined();
    expect(second.data!.webhookSubscriptions.edges[0].node.id).not.toBe(page.edges[0].node.id);
  });


  it('signs every cursor a document selects: each edge cursor, startCursor and endCursor, all usable as `after`', async () => {
    for (let i = 0; i < 3; i++) await createWebhook(key);
    const PAGE = 'query($after: String) { webhookSubscriptions(first: 3, after: $after) { edges { cursor node { id } } pageInfo { startCursor endCursor } } }';
    const page = (await gql(PAGE)).data!.webhookSubscriptions;
    const cursors: string[] = [...page.edges.map((e: { cursor: string }) => e.cursor), page.pageInfo.startCursor, page.pageInfo.endCursor];
    for (const cursor of cursors) expect(cursor).toMatch(SIGNED_CURSOR);
    expect(page.pageInfo.startCursor).toBe(page.edges[0].cursor);
    expect(page.pageInfo.endCursor).toBe(page.edges[2].cursor);
    // After the first edge come the second and third.
    const after = await gql(PAGE, { after: page.edges[0].cursor });
    expect(after.errors).toBeUndefined();
    const ids = (edges: { node: { id: string } }[]) => edges.map((e) => e.node.id);
    expect(ids(after.data!.webhookSubscriptions.edges).slice(0, 2)).toEqual(ids(page.edges).slice(1));
  });
  it('refuses forged, altered and foreign cursors without naming a library', async () => {
    const endCursor: string = (await gql(LIST)).data!.webhookSubscriptions.pageInfo.endCursor;
    const users = await gql('{ users(first: 1) { pageInfo { endCursor } } }');
    const forged = [
      Buffer.from('OffsetConnection:abc').toString('base64'), // Pothos's own offset cursor, unsigned
      Buffer.from('OffsetConnection:0').toString('base64'),
      `${endCursor.slice(0, -1)}${endCursor.endsWith('A') ? 'B' : 'A'}`, // tag altered
      `${Buffer.from('OffsetConnection:5').toString('base64url')}.${endCursor.split('.')[1]}`, // content altered
      users.data!.users.pageInfo.endCursor, // another list's
      `${Buffer.from('id:\u0000').toString('base64url')}.${'A'.repeat(22)}`,
    ];
    for (const after of forged) {
      const body = await gql(LIST, { after });
      expectRefused(body, '/after', /is not a cursor of this list/);
      expect(JSON.stringify(body), after).not.toMatch(/pothos|OffsetConnection|prisma/i);
    }
  });

  it('REST answers a forged cursor with 422 on query/cursor', async () => {
    for (const cursor of [Buffer.from('OffsetConnection:abc').toString('base64url'), 'abc.def', `${'A'.repeat(10)}.${'A'.repeat(22)}`]) {
      for (const path of ['/webhooks', '/tickets', '/users', '/kb/articles', '/boards']) {
        const res = await api('GET', `${path}?cursor=${encodeURIComponent(cursor)}`, { key });
        expect(res.status, `${path} ${cursor}: ${res.text}`).toBe(422);
        expect(res.body.errors).toEqual([{ path: 'query/cursor', message: 'is not a cursor of this list' }]);
        expect(res.text).not.toMatch(/pothos|OffsetConnection/i);
      }
    }
  });
});
