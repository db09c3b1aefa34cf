// What a /graphql document may ask for, checked before anything runs (docs/integrators/api-conventions.md, "Limits"). Sized from
// what is really sent: the settings UI's operations, the REST routes' operations and GraphiQL's
// introspection query (test/graphql/graphql-limits.test.ts runs every one of them through these
// checks). Refusals are 400 `query_too_complex`, naming the rule.
import {
  getOperationAST,
  GraphQLError,
  Kind,
  Lexer,
  OperationTypeNode,
  Source,
  TokenKind,
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import { AppError, errorTable, type ErrorCode } from '../errors/errors.ts';
import type { GraphQLContext } from './context.ts';

export const GRAPHQL_LIMITS = {
  /** Characters of the document: comments, spaces and string literals cost no tokens, yet fill
   * Yoga's document cache (yoga.ts); large values belong in variables. */
  documentLength: 16_384,
  /** Tokens of the document (the largest operation sent is GraphiQL's introspection, 184). Also
   * bounds the parser's recursion, and every count below. */
  tokens: 500,
  /** Nesting of fields, fragments not counted (the deepest operation sent: 5). Introspection below
   * `__schema` is bounded by graphql-js itself (MaxIntrospectionDepthRule). */
  depth: 8,
  /** Aliased fields (none are sent; each alias of a root field is one more read). */
  aliases: 15,
  /** Directives such as @include (none are sent). */
  directives: 10,
  /** See complexity.ts: one full page of 100 rows with any selection the API offers (the costliest,
   * listBoards, is 109,000), never two (200,000 and more). */
  cost: 120_000,
  /** Mutation fields of one document (the settings UI sends one at a time). Each does work, so each
   * beyond the first also counts as one more request of the caller's allowance. */
  mutationFields: 5,
} as const;

type Context = GraphQLContext & YogaInitialContext;

/** A refusal: its code and status in `extensions` as every error here, and the HTTP status for Yoga
 * (`spec: false`: also for clients that accept only application/json, which Yoga answers 200). */
function refusal(code: ErrorCode, message: string, nodes?: readonly ASTNode[]): GraphQLError {
  const { status } = errorTable[code];
  return new GraphQLError(message, { nodes, extensions: { code, status, http: { status, spec: false } } });
}

/** Size before parsing: the lexer counts tokens without building the document (and stops at the limit). */
export function documentRefusal(query: string): GraphQLError | null {
  if (query.length > GRAPHQL_LIMITS.documentLength) {
    return refusal('query_too_complex', `The document may be at most ${GRAPHQL_LIMITS.documentLength} characters; send large values as variables`);
  }
  // Every token is at least one character.
  if (query.length <= GRAPHQL_LIMITS.tokens) return null;
  const lexer = new Lexer(new Source(query));
  try {
    for (let tokens = 0; lexer.advance().kind !== TokenKind.EOF; ) {
      if (++tokens > GRAPHQL_LIMITS.tokens) return refusal('query_too_complex', `The document may have at most ${GRAPHQL_LIMITS.tokens} tokens`);
    }
  } catch {
    // A syntax error: the parser reports it, with its location.
  }
  return null;
}

/** GraphQL Armor's counts run with the schema's own validation rules; a refusal is reported, not thrown. */
const reportRefusal = (context: ValidationContext | null, error: GraphQLError) =>
  context?.reportError(refusal('query_too_complex', error.message.replace(/^Syntax Error: /, '')));
const armorRule = { onReject: [reportRefusal], propagateOnRejection: false, exposeLimits: true };

interface CostArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  variableValues?: Readonly<Record<string, unknown>> | null;
  operationName?: string | null;
  contextValue?: unknown;
}

/** The cost of the operation that runs, with the request's variables; 0 when there is none to run or
 * its variables do not fit (execution refuses those). */
export function costOf({ schema, document, variableValues, operationName, contextValue }: CostArgs): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  try {
    // complexityFromQuery measures a document's first operation: given only the one that runs.
    const runs: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...fragments] };
    return complexityFromQuery(runs, { schema, ctx: (contextValue ?? {}), variables: { ...variableValues } }).complexity;
  } catch (err) {
    if (err instanceof GraphQLError) return 0;
    throw err;
  }
}

/** The root fields a mutation runs (`__typename` aside), through fragments; 0 for a query. */
export function mutationFieldCount(document: DocumentNode, operationName?: string | null): number {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== OperationTypeNode.MUTATION) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const seen = new Set<string>();
  const count = (set: SelectionSetNode): number =>
    set.selections.reduce((n, s) => {
      if (s.kind === Kind.FIELD) return n + (s.name.value === '__typename' ? 0 : 1);
      if (s.kind === Kind.INLINE_FRAGMENT) return n + count(s.selectionSet);
      const fragment = fragments.get(s.name.value);
      if (!fragment || seen.has(s.name.value)) return n;
      seen.add(s.name.value);
      return n + count(fragment.selectionSet);
    }, 0);
  return count(operation.selectionSet);
}

const introspectionNeedsSignIn: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(refusal('unauthenticated', 'Introspection needs a signed-in session or an API key', [node]));
    }
  },
});

/** graphql-js ends a message with its guesses: `… Did you mean "viewer"?`, `… Did you mean the enum value "held"?`. */
const SUGGESTION = / ?Did you mean .*$/s;

/**
 * Every limit as Yoga plugins. In production an anonymous caller may not introspect and is told
 * no guesses at field, argument or enum names (`explorable` is false for them).
 */
export function graphqlLimits({ production }: { production: boolean }): Plugin<Context>[] {
  const explorable = (context: Context) => !production || context.principal !== null;
  return [
    {
      onParams({ params, setResult }) {
        const error = typeof params.query === 'string' ? documentRefusal(params.query) : null;
        if (error) setResult({ errors: [error] });
      },
      onValidate({ context, addValidationRule }) {
        if (!explorable(context)) addValidationRule(introspectionNeedsSignIn);
      },
      // The cost depends on the variables (`first: $n`), so it is not part of the cached validation.
      async onExecute({ args: untyped, setResultAndStopExecution }) {
        // Envelop types the execution arguments loosely (any); Yoga's are graphql-js's.
        const args = untyped as CostArgs;
        const cost = costOf(args);
        if (cost > GRAPHQL_LIMITS.cost) {
          setResultAndStopExecution({ errors: [refusal('query_too_complex', `The query may cost at most ${GRAPHQL_LIMITS.cost}; it costs ${cost}`)] });
          return;
        }
        const mutations = mutationFieldCount(args.document, args.operationName);
        if (mutations > GRAPHQL_LIMITS.mutationFields) {
          setResultAndStopExecution({ errors: [refusal('too_many_mutations', `A document may run at most ${GRAPHQL_LIMITS.mutationFields} mutation fields; it runs ${mutations}`)] });
          return;
        }
        const context = untyped.contextValue;
        if (mutations > 1 && context.chargeRequests) {
          try {
            await context.chargeRequests(mutations - 1);
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            Object.assign((context.responseHeaders ??= {}), err.headers);
            setResultAndStopExecution({ errors: [refusal(err.code, `Each mutation field counts as one request: ${err.message}`)] });
          }
        }
      },
      onExecutionResult(payload) {
        const { result, context } = payload;
        if (explorable(context as Context) || !result || !('errors' in result) || !result.errors?.length) return;
        // New errors: the validation cache shares its error objects between requests.
        const errors = result.errors.map((e) =>
          SUGGESTION.test(e.message) ? new GraphQLError(e.message.replace(SUGGESTION, ''), { nodes: e.nodes, path: e.path, originalError: e.originalError, extensions: e.extensions }) : e,
        );
        payload.setResult({ ...result, errors });
      },
    },
    EnvelopArmorPlugin({
      maxDepth: { n: GRAPHQL_LIMITS.depth, flattenFragments: true, ...armorRule },
      maxAliases: { n: GRAPHQL_LIMITS.aliases, ...armorRule },
      maxDirectives: { n: GRAPHQL_LIMITS.directives, ...armorRule },
      // Counted above, before parsing: Yoga answers a parse error 200 to clients that accept application/json.
      maxTokens: { enabled: false },
      // It knows no variables (`first: $n` counts once); costs come from complexity.ts instead.
      costLimit: { enabled: false },
      // It misses enum values, and it cannot tell a signed-in caller: see onExecutionResult.
      blockFieldSuggestion: { enabled: false },
    }),
  ];
}
