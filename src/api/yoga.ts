// Builds the GraphQL server; it never listens (src/main.ts does, through the HTTP app).
import { createYoga, type GraphQLParams, type Plugin } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { schema } from './schema.ts';
import { config } from '../config.ts';
import { AppError } from '../errors/errors.ts';
import { logger } from '../logger.ts';
import { asCallerError } from '../paging/cursor.ts';
import { releaseRequestCaches, type GraphQLContext } from '../graphql/context.ts';
import { graphqlLimits } from '../graphql/limits.ts';
import { graphqlMetrics, knownOperationNames } from '../metrics/graphql-metrics.ts';
import { routes } from './routes.ts';
import { traceGraphQLOperation } from '../tracing/http.ts';

/**
 * Expected failures keep their GraphQLError (location and path) and gain `extensions.code`;
 * anything else is logged and masked. The same error object is returned where possible:
 * Yoga logs every error that masking replaces.
 */
function toGraphQLError(error: unknown): GraphQLError {
  const gqlError = error instanceof GraphQLError ? error : null;
  const original = asCallerError(gqlError?.originalError ?? error);
  if (original instanceof AppError) {
    const extensions = { code: original.code, status: original.status, ...(original.errors ? { errors: original.errors } : {}) };
    if (!gqlError) return new GraphQLError(original.message, { originalError: original, extensions });
    Object.assign(gqlError.extensions, extensions);
    gqlError.message = original.message;
    return gqlError;
  }
  // Errors GraphQL itself raises (syntax, validation, variable coercion) carry no original error,
  // except a wrong value inside an input-object variable, which wraps GraphQL's own error for the field.
  if (gqlError && (!gqlError.originalError || isVariableCoercionError(gqlError))) {
    Object.assign(gqlError.extensions, { code: (gqlError.extensions.code as string) ?? 'invalid_request' });
    return gqlError;
  }
  logger.error({ err: original }, 'unexpected error in GraphQL resolver');
  return new GraphQLError('Internal error', { nodes: gqlError?.nodes, path: gqlError?.path, extensions: { code: 'internal_error' } });
}

/** `Variable "$input" got invalid value … at "input.subject"; …`: raised before execution, about the request. */
const isVariableCoercionError = (e: GraphQLError) =>
  e.path === undefined && e.originalError instanceof GraphQLError && e.message.startsWith('Variable "$');

/** At most `max` entries, the least recently used dropped first. */
function lruCache<T>(max: number) {
  const entries = new Map<string, T>();
  return {
    get(key: string): T | undefined {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key: string, value: T): void {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > max) entries.delete(entries.keys().next().value!);
    },
  };
}

/**
 * Parsed documents are kept by their text. A document of the largest size limits.ts allows holds
 * about 140 KB once parsed (its tokens stay linked for error locations), so Yoga's default of 1,024
 * entries could hold 140 MB of documents sent to fill it; the settings UI has about 25 operations.
 */
const DOCUMENT_CACHE_ENTRIES = 128;

/** The body the endpoint read (src/http/graphql-endpoint.ts) is the parameters: its stream is spent. */
const useRequestBody: Plugin<Record<never, never>, GraphQLContext> = {
  onRequestParse({ serverContext, setRequestParser }) {
    if (serverContext.requestBody !== undefined) setRequestParser(() => serverContext.requestBody as GraphQLParams);
  },
};

/** Pothos' per-request caches go once the operation has run (graphql/context.ts): Yoga executes with its own copy of the context the endpoint gave it. */
const useReleasedCaches: Plugin<Record<never, never>, GraphQLContext> = {
  onExecute: ({ args }) => ({ onExecuteDone: () => releaseRequestCaches(args.contextValue) }),
};

/** `production`: no GraphiQL; introspection and guesses at names in errors only for signed-in callers (limits.ts). */
export function createGraphQLServer({ production = config.isProduction }: { production?: boolean } = {}) {
  return createYoga<GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: !production,
    landingPage: false,
    plugins: [useRequestBody, graphqlMetrics(knownOperationNames(routes.map((r) => r.operation))), ...graphqlLimits({ production }), traceGraphQLOperation, useReleasedCaches],
    parserAndValidationCache: { documentCache: lruCache(DOCUMENT_CACHE_ENTRIES), errorCache: lruCache(DOCUMENT_CACHE_ENTRIES) },
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
