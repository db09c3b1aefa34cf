// Knowledge base articles. A change is attributed to the caller's account: for an API key, its
// service account.
import { z } from 'zod';
import { AppError, fromZodIssues } from '../errors/errors.ts';
import type { Principal } from '../access/principal.ts';
import { text } from '../validation/text.ts';
import { pageById, type ConnectionArgs } from '../paging/page-by-key.ts';
import type { PageHold } from '../paging/page-budget.ts';
import { articleRepository } from './article.repository.ts';

export const ARTICLE_STATUSES = ['draft', 'published', 'archived'] as const;

const articleFields = {
  title: text({ max: 200, min: 1, trim: true }),
  body: text({ max: 100_000 }),
  status: z.enum(ARTICLE_STATUSES).optional(),
  tags: z.array(text({ max: 50, min: 1, trim: true })).max(20).optional(),
};

/** New article: title and body required; status defaults to `draft`. */
export const createArticleInput = z.strictObject(articleFields);

/** A change: any members of the article, at least one. */
export const updateArticleInput = z
  .strictObject(articleFields)
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'Send at least one member to change' })
  .meta({ minProperties: 1 });

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) throw new AppError('validation_failed', 'The article did not pass validation', { errors: fromZodIssues(r.error.issues) });
  return r.data;
}

const uniqueTags = <T extends { tags?: string[] }>(v: T): T => (v.tags ? { ...v, tags: [...new Set(v.tags)] } : v);

type Selection = Parameters<typeof articleRepository.find>[2];
const notFound = (id: number) => new AppError('not_found', `No knowledge base article ${id}`);

/** As for tickets: the scope lets a key ask; the role, as for a person with it, decides whether it may write. */
function requireWriteRole(p: Principal) {
  if (!p.role.isAdmin && !p.role.permissions.has('kb.write')) {
    throw new AppError('forbidden', `The role ${p.role.name} does not allow changing the knowledge base`);
  }
}

export const articleService = {
  /** Newest first, by id; a page stops early at the page byte budget (paging/page-budget.ts). */
  list(principal: Principal, status: (typeof ARTICLE_STATUSES)[number] | undefined, args: ConnectionArgs, query: Selection, hold?: PageHold) {
    const workspaceId = principal.workspace.id;
    return pageById(args, true, (page) => articleRepository.list(workspaceId, status, page, query), {
      sizes: (page) => articleRepository.listSizes(workspaceId, status, page),
      hold,
    });
  },

  async get(principal: Principal, id: number, query: Selection) {
    const article = await articleRepository.find(principal.workspace.id, id, query);
    if (!article) throw notFound(id);
    return article;
  },

  create(principal: Principal, input: unknown, query: Selection) {
    requireWriteRole(principal);
    const data = uniqueTags(parse(createArticleInput, input));
    return articleRepository.create(principal.workspace.id, principal.user.id, data, query);
  },

  async update(principal: Principal, id: number, input: unknown, query: Selection) {
    requireWriteRole(principal);
    const data = uniqueTags(parse(updateArticleInput, input));
    const article = await articleRepository.update(principal.workspace.id, id, principal.user.id, data, query);
    if (!article) throw notFound(id);
    return article;
  },
};
