import { prisma } from '../db/db.ts';
import { Prisma, type ArticleStatus } from '../generated/prisma/client.ts';
import type { KeysetPage } from '../paging/page-by-key.ts';
import { keysetSql, sizedRows } from '../paging/keyset-sql.ts';

type ArticleSelection = Pick<Prisma.KnowledgeBaseArticleFindManyArgs, 'include' | 'select'>;

interface ArticleChanges {
  title?: string;
  body?: string;
  status?: ArticleStatus;
  tags?: string[];
}

export const articleRepository = {
  list(workspaceId: number, status: ArticleStatus | undefined, page: KeysetPage, query: ArticleSelection) {
    return prisma.knowledgeBaseArticle.findMany({ ...query, where: { AND: [{ workspaceId, status }, page.where] }, orderBy: page.orderBy, take: page.take });
  },

  /** The page's articles with their text in bytes, for the page budget (paging/page-budget.ts): one statement. */
  listSizes(workspaceId: number, status: ArticleStatus | undefined, page: KeysetPage) {
    const byStatus = status ? Prisma.sql`AND status = CAST(${status} AS "ArticleStatus")` : Prisma.empty;
    return sizedRows(Prisma.sql`
      SELECT id, octet_length(title) + octet_length(body) + octet_length(array_to_string(tags, ',')) AS bytes
      FROM "KnowledgeBaseArticle" WHERE "workspaceId" = ${workspaceId} ${byStatus} ${keysetSql(page)}`);
  },

  find(workspaceId: number, id: number, query: ArticleSelection) {
    return prisma.knowledgeBaseArticle.findFirst({ ...query, where: { id, workspaceId } });
  },

  create(workspaceId: number, authorId: number, data: ArticleChanges & { title: string; body: string }, query: ArticleSelection) {
    return prisma.knowledgeBaseArticle.create({ ...query, data: { ...data, workspaceId, authorId, updatedById: authorId } });
  },

  /** null when no such article exists in the workspace. */
  async update(workspaceId: number, id: number, editorId: number, data: ArticleChanges, query: ArticleSelection) {
    try {
      return await prisma.knowledgeBaseArticle.update({ ...query, where: { id, workspaceId }, data: { ...data, updatedById: editorId } });
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2025') return null;
      throw err;
    }
  },
};
