// Builds the GraphQL server; it never listens (src/main.ts does, through the HTTP app).
import { createYoga } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { schema } from './schema.ts';
import { config } from '../config.ts';
import { AppError } from '../errors/errors.ts';
import { logger } from '../logger.ts';
import { asCallerError } from './cursor.ts';
import type { GraphQLContext } from './context.ts';

/**
 * Expected failures keep their GraphQLError (location and path) and gain `extensions.code`;
 * anything else is logged and masked. The same error object is returned where possible:
 * Yoga logs every error that masking replaces.
 */
export function toGraphQLError(error: unknown): GraphQLError {
  const gqlError = error instanceof GraphQLError ? error : null;
  const original = asCallerError(gqlError?.originalError ?? error);
  if (original instanceof AppError) {
    const extensions = { code: original.code, status: original.status, ...(original.errors ? { errors: original.errors } : {}) };
    if (!gqlError) return new GraphQLError(original.message, { originalError: original, extensions });
    Object.assign(gqlError.extensions, extensions);
    gqlError.message = original.message;
    return gqlError;
  }
  // Errors GraphQL itself raises (syntax, validation, variable coercion) carry no original error.
  if (gqlError && !gqlError.originalError) {
    Object.assign(gqlError.extensions, { code: (gqlError.extensions.code as string) ?? 'invalid_request' });
    return gqlError;
  }
  logger.error({ err: original }, 'unexpected error in GraphQL resolver');
  return new GraphQLError('Internal error', { nodes: gqlError?.nodes, path: gqlError?.path, extensions: { code: 'internal_error' } });
}

/** `production`: GraphiQL only outside production. */
export function createGraphQLServer({ production = config.isProduction }: { production?: boolean } = {}) {
  return createYoga<GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: !production,
    landingPage: false,
    // Other sites may call with an API key (preflights pass, see authenticateGraphQLRequest), but
    // never with the session cookie: no Access-Control-Allow-Credentials, so a browser does not
    // let a foreign page read an answer made with cookies (Yoga's default allows it for any origin).
    cors: {
      origin: '*',
      credentials: false,
      methods: ['GET', 'POST'],
      allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
      exposedHeaders: ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After'],
    },
    maskedErrors: { maskError: (error) => toGraphQLError(error) },
    // Unexpected errors are logged above (pino); Yoga's own logger would repeat them.
    logging: config.logLevel === 'debug' ? 'debug' : false,
  });
}

export type GraphQLServer = ReturnType<typeof createGraphQLServer>;
