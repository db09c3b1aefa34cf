import { prisma } from '../db/db.ts';
import { Prisma, type ArticleStatus } from '../generated/prisma/client.ts';

type ArticleQuery = Pick<Prisma.KnowledgeBaseArticleFindManyArgs, 'include' | 'select' | 'cursor' | 'take' | 'skip'>;
type ArticleSelection = Pick<ArticleQuery, 'include' | 'select'>;

export interface ArticleChanges {
  title?: string;
  body?: string;
  status?: ArticleStatus;
  tags?: string[];
}

export const articleRepository = {
  /** Newest first. */
  list(workspaceId: number, status: ArticleStatus | undefined, query: ArticleQuery) {
    return prisma.knowledgeBaseArticle.findMany({ ...query, where: { workspaceId, status }, orderBy: { id: 'desc' } });
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
