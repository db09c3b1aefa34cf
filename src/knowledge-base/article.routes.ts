import { z } from 'zod';
import { defineRoutes, intIdParam, pagedOperation } from '../rest/route.ts';
import { pageQuery, pageVariables } from '../paging/paging.ts';
import { ARTICLE_STATUSES, createArticleInput, updateArticleInput } from './article.service.ts';

/** The article representation of every article response. */
const ARTICLE_SELECTION = 'id title body status tags author { id name } updatedBy { id name } createdAt updatedAt';

const idParams = z.object({ id: intIdParam.describe('Article id') });

const WRITE_NOTE = 'Needs the scope `kb:write`, and a role that may change the knowledge base (else 403 `forbidden`).';

const ATTRIBUTION_NOTE = 'The change is attributed to the key’s service account (`author` on creation, `updatedBy` on every change).';

export const articleRoutes = defineRoutes([
  {
    operationId: 'listKnowledgeBaseArticles',
    method: 'GET',
    path: '/kb/articles',
    tag: 'Knowledge base',
    summary: 'Knowledge base articles, newest first',
    description: 'Needs the scope `kb:read` or `kb:write`. Paged: `{data, nextCursor}`; `status` filters.',
    operation: pagedOperation('listKnowledgeBaseArticles', 'knowledgeBaseArticles', ARTICLE_SELECTION, { status: '$status: ArticleStatus' }),
    query: pageQuery.extend({ status: z.enum(ARTICLE_STATUSES).optional().describe('Only articles in this status') }),
    variables: ({ query }) => ({ ...pageVariables(query), status: query.status ?? null }),
    paged: true,
  },
  {
    operationId: 'getKnowledgeBaseArticle',
    method: 'GET',
    path: '/kb/articles/{id}',
    tag: 'Knowledge base',
    summary: 'One knowledge base article',
    description: 'Needs the scope `kb:read` or `kb:write`.',
    operation: /* GraphQL */ `
      query getKnowledgeBaseArticle($id: Int!) {
        knowledgeBaseArticle(id: $id) { ${ARTICLE_SELECTION} }
      }`,
    params: idParams,
    variables: ({ params }) => ({ id: params.id }),
  },
  {
    operationId: 'createKnowledgeBaseArticle',
    method: 'POST',
    path: '/kb/articles',
    tag: 'Knowledge base',
    summary: 'Write a knowledge base article',
    description: `${WRITE_NOTE} \`status\` defaults to \`draft\`. ${ATTRIBUTION_NOTE}`,
    operation: /* GraphQL */ `
      mutation createKnowledgeBaseArticle($input: CreateKnowledgeBaseArticleInput!) {
        createKnowledgeBaseArticle(input: $input) { ${ARTICLE_SELECTION} }
      }`,
    body: createArticleInput,
    variables: ({ body }) => ({ input: body }),
    status: 201,
  },
  {
    operationId: 'updateKnowledgeBaseArticle',
    method: 'PATCH',
    path: '/kb/articles/{id}',
    tag: 'Knowledge base',
    summary: 'Change a knowledge base article',
    description: `${WRITE_NOTE} Send only the members to change (at least one). ${ATTRIBUTION_NOTE}`,
    operation: /* GraphQL */ `
      mutation updateKnowledgeBaseArticle($id: Int!, $input: UpdateKnowledgeBaseArticleInput!) {
        updateKnowledgeBaseArticle(id: $id, input: $input) { ${ARTICLE_SELECTION} }
      }`,
    params: idParams,
    body: updateArticleInput,
    variables: ({ params, body }) => ({ id: params.id, input: body }),
  },
]);
