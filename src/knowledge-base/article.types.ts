// GraphQL types of knowledge base articles, their queries and the mutations that write them.
import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../graphql/builder.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../paging/paging.ts';
import { UserRef } from '../users/user.types.ts';
import { ARTICLE_STATUSES, articleService } from './article.service.ts';

const ArticleStatusEnum = builder.enumType('ArticleStatus', { values: ARTICLE_STATUSES });

const KnowledgeBaseArticle = builder.prismaObject('KnowledgeBaseArticle', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    title: t.exposeString('title'),
    body: t.exposeString('body'),
    status: t.expose('status', { type: ArticleStatusEnum }),
    tags: t.exposeStringList('tags'),
    author: t.relation('author', { type: UserRef, description: 'Who created it (for an API key, its service account)' }),
    updatedBy: t.relation('updatedBy', { type: UserRef, description: 'Who changed it last (for an API key, its service account)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryField('knowledgeBaseArticles', (t) =>
  t.connection({
    type: KnowledgeBaseArticle,
    description: `Articles of the workspace, newest first: up to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}), fewer when their text passes the page byte budget (\`hasNextPage\` then says more follow)`,
    authScopes: { anyScope: ['kb:read', 'kb:write'] },
    args: { status: t.arg({ type: ArticleStatusEnum, required: false }) },
    // Paged by id in the service, for its byte budget; the nodes' relations come from the selection.
    resolve: (_root, { status, ...args }, ctx, info) =>
      articleService.list(ctx.principal!, status ?? undefined, args, queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }), ctx.pageHold),
  }),
);

builder.queryField('knowledgeBaseArticle', (t) =>
  t.prismaField({
    type: 'KnowledgeBaseArticle',
    authScopes: { anyScope: ['kb:read', 'kb:write'] },
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, { id }, ctx) => articleService.get(ctx.principal!, id, query),
  }),
);

const CreateKnowledgeBaseArticleInput = builder.inputType('CreateKnowledgeBaseArticleInput', {
  fields: (t) => ({
    title: t.string({ required: true, description: '1 to 200 characters' }),
    body: t.string({ required: true, description: 'Up to 100,000 characters' }),
    status: t.field({ type: ArticleStatusEnum, required: false, description: 'Default `draft`' }),
    tags: t.stringList({ required: false, description: 'Up to 20 tags of 1 to 50 characters' }),
  }),
});

const UpdateKnowledgeBaseArticleInput = builder.inputType('UpdateKnowledgeBaseArticleInput', {
  description: 'The members to change; at least one',
  fields: (t) => ({
    title: t.string({ required: false }),
    body: t.string({ required: false }),
    status: t.field({ type: ArticleStatusEnum, required: false }),
    tags: t.stringList({ required: false }),
  }),
});

builder.mutationField('createKnowledgeBaseArticle', (t) =>
  t.prismaField({
    type: 'KnowledgeBaseArticle',
    authScopes: { scope: 'kb:write' },
    args: { input: t.arg({ type: CreateKnowledgeBaseArticleInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => articleService.create(ctx.principal!, input, query),
  }),
);

builder.mutationField('updateKnowledgeBaseArticle', (t) =>
  t.prismaField({
    type: 'KnowledgeBaseArticle',
    authScopes: { scope: 'kb:write' },
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateKnowledgeBaseArticleInput, required: true }) },
    resolve: (query, _root, { id, input }, ctx) => articleService.update(ctx.principal!, id, input, query),
  }),
);
