// A list page stops at the page byte budget and its cursor goes on without loss or repeat.
import { describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { PAGE_BYTE_BUDGET, rowsWithinBudget } from '../../src/paging/page-budget.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';

const BODY_CHARS = 90_000;

describe('page byte budget', () => {
  it('fits leading rows and always keeps one', () => {
    expect(rowsWithinBudget([1, 2, 3], 10_000)).toBe(3);
    expect(rowsWithinBudget([4_000, 4_000, 4_000], 10_000)).toBe(2);
    expect(rowsWithinBudget([20_000, 1], 10_000)).toBe(1);
    expect(rowsWithinBudget([])).toBe(0);
  });

  it('cuts a page of large articles; the cursor pages through every one exactly once (REST and GraphQL)', { timeout: 120_000 }, async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['kb:read'] });
    const count = 60; // 60 x 90,000 characters: 5.4 MB, past the 4 MiB budget
    await prisma.knowledgeBaseArticle.createMany({
      data: Array.from({ length: count }, (_, i) => ({
        workspaceId: ws.workspace.id,
        authorId: ws.admin.id,
        updatedById: ws.admin.id,
        title: `Article ${i}`,
        body: String(i % 10).repeat(BODY_CHARS),
        status: 'published' as const,
      })),
    });
    const expected = (await prisma.knowledgeBaseArticle.findMany({ where: { workspaceId: ws.workspace.id }, orderBy: { id: 'desc' }, select: { id: true } })).map((a) => a.id);

    const seen: number[] = [];
    const pageSizes: number[] = [];
    let path: string | null = '/kb/articles?limit=100';
    while (path) {
      const res = await api('GET', path, { key: key.value });
      expect(res.status).toBe(200);
      expect(res.text.length).toBeLessThanOrEqual(PAGE_BYTE_BUDGET + 100 * 1024);
      pageSizes.push(res.body.data.length);
      seen.push(...res.body.data.map((a: { id: number; body: string }) => (expect(a.body).toHaveLength(BODY_CHARS), a.id)));
      path = res.body.nextCursor ? `/kb/articles?limit=100&cursor=${encodeURIComponent(res.body.nextCursor)}` : null;
    }
    expect(pageSizes.length).toBeGreaterThan(1);
    expect(pageSizes[0]).toBeLessThan(count);
    expect(seen).toEqual(expected);

    // Backwards from the end (GraphQL `last`): the page keeps the rows nearest its cursor.
    const query = `query($before: String) { knowledgeBaseArticles(last: 100, before: $before) { edges { node { id } } pageInfo { hasPreviousPage startCursor } } }`;
    const back: number[] = [];
    let before: string | null = null;
    let pages = 0;
    for (;;) {
      const res = await api('POST', '/graphql', { key: key.value, body: { query, variables: { before } } });
      expect(res.body.errors).toBeUndefined();
      const conn = res.body.data.knowledgeBaseArticles;
      back.unshift(...conn.edges.map((e: { node: { id: number } }) => e.node.id));
      pages++;
      if (!conn.pageInfo.hasPreviousPage) break;
      before = conn.pageInfo.startCursor;
    }
    expect(pages).toBeGreaterThan(1);
    expect(back).toEqual(expected);
  });
});
