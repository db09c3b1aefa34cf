// Builds the GraphQL server; it never listens (src/main.ts does, through the HTTP app).
import { createYoga } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { schema } from './schema.ts';
import { config } from '../config.ts';
import { AppError } from '../errors/errors.ts';
import { logger } from '../logger.ts';
import type { GraphQLContext } from './context.ts';

export function toGraphQLError(error: unknown): GraphQLError {
  const gqlError = error instanceof GraphQLError ? error : null;
  const original = gqlError?.originalError ?? error;
  if (original instanceof AppError) {
    return new GraphQLError(original.message, {
      nodes: gqlError?.nodes,
      path: gqlError?.path,
      originalError: original,
      extensions: { code: original.code, status: original.status, ...(original.errors ? { errors: original.errors } : {}) },
    });
  }
  // Errors GraphQL itself raises (syntax, validation, variable coercion) carry no original error.
  if (gqlError && !gqlError.originalError) {
    return new GraphQLError(gqlError.message, {
      nodes: gqlError.nodes,
      path: gqlError.path,
      extensions: { ...gqlError.extensions, code: (gqlError.extensions.code as string) ?? 'invalid_request' },
    });
  }
  logger.error({ err: original }, 'unexpected error in GraphQL resolver');
  return new GraphQLError('Internal error', { nodes: gqlError?.nodes, path: gqlError?.path, extensions: { code: 'internal_error' } });
}

export const yoga = createYoga<GraphQLContext>({
  schema,
  graphqlEndpoint: '/graphql',
  graphiql: !config.isProduction,
  landingPage: false,
  maskedErrors: { maskError: (error) => toGraphQLError(error) },
  logging: config.logLevel === 'debug' ? 'debug' : 'warn',
});
