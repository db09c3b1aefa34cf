// Counts GraphQL operations at /graphql by name and outcome: `success` (executed, no errors),
// `error` (executed, with errors), `rejected` (never executed: parse, validation or a limit).
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { graphqlOperations } from './metrics.ts';

const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;
/** Operation names are the caller's text: past this many distinct ones, new names count as `other`. */
const MAX_NAMES = 100;

export function graphqlMetrics(): Plugin {
  const names = new Set<string>();
  const label = (name: string | null | undefined) => {
    if (!name) return 'anonymous';
    if (!NAME.test(name)) return 'other';
    if (names.has(name)) return name;
    if (names.size >= MAX_NAMES) return 'other';
    names.add(name);
    return name;
  };
  const executed = new WeakMap<Request, string | undefined>();
  const asked = new WeakMap<Request, string | null | undefined>();

  return {
    onParams({ request, params }) {
      asked.set(request, params.operationName);
    },
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (request) executed.set(request, getOperationAST(args.document, args.operationName)?.name?.value);
    },
    onResultProcess({ request, result }) {
      const errors = !Array.isArray(result) && 'errors' in result && (result.errors?.length ?? 0) > 0;
      if (executed.has(request)) graphqlOperations.inc({ operation: label(executed.get(request)), outcome: errors ? 'error' : 'success' });
      else graphqlOperations.inc({ operation: label(asked.get(request)), outcome: 'rejected' });
    },
  };
}
