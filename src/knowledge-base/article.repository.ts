import { prisma } from '../db/db.ts';
import { Prisma, type ArticleStatus } from '../generated/prisma/client.ts';
import type { KeysetPage } from '../tickets/ticket.paging.ts';

type ArticleSelection = Pick<Prisma.KnowledgeBaseArticleFindManyArgs, 'include' | 'select'>;

export interface ArticleChanges {
  title?: string;
  body?: string;
  status?: ArticleStatus;
  tags?: string[];
}

export const articleRepository = {
  list(workspaceId: number, status: ArticleStatus | undefined, page: KeysetPage, query: ArticleSelection) {
    return prisma.knowledgeBaseArticle.findMany({ ...query, where: { AND: [{ workspaceId, status }, page.where] }, orderBy: page.orderBy, take: page.take });
  },

  async listIds(workspaceId: number, status: ArticleStatus | undefined, page: KeysetPage) {
    const rows = await prisma.knowledgeBaseArticle.findMany({ where: { AND: [{ workspaceId, status }, page.where] }, orderBy: page.orderBy, take: page.take, select: { id: true } });
    return rows.map((r) => r.id);
  },

  /** Each article's text in bytes, for the page budget (rest/page-budget.ts). */
  async bytes(ids: number[]) {
    const rows = await prisma.$queryRaw<{ id: number; bytes: number | null }[]>`
      SELECT id, octet_length(title) + octet_length(body) + octet_length(array_to_string(tags, ',')) AS bytes
      FROM "KnowledgeBaseArticle" WHERE id = ANY(${ids})`;
    return new Map(rows.map((r) => [r.id, Number(r.bytes ?? 0)]));
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
