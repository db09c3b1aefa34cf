// The UI's only way to the server: GraphQL at /graphql with the session cookie. Every POST
// carries the session's CSRF token (the server refuses POSTs of a session without it), so the
// viewer is read with GET first; see src/auth/csrf.ts. Operations are the typed documents of
// operations.ts (generated in web/src/gql/), so each call's variables and result follow the schema.
import type { TypedDocumentString } from '../gql/graphql.ts';

const ENDPOINT = '/graphql';

let csrfToken: string | null = null;

/** Set from `viewer { csrfToken }` (or signIn's answer); cleared on sign-out. */
export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

export interface FieldProblem {
  /** JSON-pointer-like path of the member, e.g. `/url` or `/input/url`. */
  path: string;
  message: string;
}

/** A failure the UI can show: a sentence, and per-field messages where the server named fields. */
export class ApiError extends Error {
  readonly code: string;
  readonly fieldErrors: FieldProblem[];

  constructor(code: string, message: string, fieldErrors: FieldProblem[] = []) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.fieldErrors = fieldErrors;
  }
}

interface GraphQLErrorShape {
  message?: string;
  extensions?: { code?: string; errors?: FieldProblem[] };
}

/**
 * Our own errors (AppError) carry sentences written for people and are shown as they are. These
 * codes are the exceptions: GraphQL's own messages (invalid_request) are meant for programmers,
 * and the others say nothing a person can act on.
 */
const SENTENCES: Record<string, string> = {
  csrf_failed: 'The page was open too long or in another tab. Reload the page and try again.',
  rate_limited: 'Too many requests in a short time. Wait a minute and try again.',
  internal_error: 'Something went wrong on the server. Try again in a moment.',
  invalid_request: 'The server did not understand the request. Reload the page and try again.',
};
/** The bare titles of the error table, said better for a person of the settings. */
const TITLES: Record<string, string> = {
  'Sign-in required': 'Your session has ended. Sign in again.',
  'Your role does not allow this action': 'Your role does not allow this action.',
};

function toApiError(error: GraphQLErrorShape | undefined, status: number): ApiError {
  const code = error?.extensions?.code ?? (status >= 500 ? 'internal_error' : 'invalid_request');
  const fieldErrors = error?.extensions?.errors ?? [];
  const message = SENTENCES[code] ?? (error?.message ? (TITLES[error.message] ?? error.message) : 'The request failed. Try again.');
  return new ApiError(code, sentence(message), fieldErrors);
}

/** Messages are shown as sentences: capital first letter, closing full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const capital = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

async function send<T>(request: Request): Promise<T> {
  let response: Response;
  try {
    response = await fetch(request);
  } catch {
    throw new ApiError('network_error', 'The server could not be reached. Check your connection and try again.');
  }
  let body: { data?: T | null; errors?: GraphQLErrorShape[] } | undefined;
  try {
    body = (await response.json()) as typeof body;
  } catch {
    body = undefined;
  }
  if (body?.errors?.length || !body?.data) throw toApiError(body?.errors?.[0], response.status);
  return body.data;
}

/** What an operation answers, read off its generated document. */
export type ResultOf<D> = D extends TypedDocumentString<infer R, infer _V> ? R : never;

/** The variables argument: optional when the operation requires none. */
type VariablesArg<V> = Record<string, never> extends V ? [variables?: V] : [variables: V];

/** A query read with GET: needs no CSRF token (used for `viewer`, before the token is known). */
export function gqlGet<R, V>(document: TypedDocumentString<R, V>, ...[variables]: VariablesArg<V>): Promise<R> {
  const url = new URL(ENDPOINT, window.location.origin);
  url.searchParams.set('query', document.toString());
  if (variables) url.searchParams.set('variables', JSON.stringify(variables));
  return send<R>(new Request(url, { method: 'GET', credentials: 'same-origin', headers: { accept: 'application/json' } }));
}

/** Any operation, with POST and the session's CSRF token. */
export function gql<R, V>(document: TypedDocumentString<R, V>, ...[variables]: VariablesArg<V>): Promise<R> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (csrfToken) headers['x-csrf-token'] = csrfToken;
  const body = JSON.stringify({ query: document.toString(), variables });
  return send<R>(new Request(ENDPOINT, { method: 'POST', credentials: 'same-origin', headers, body }));
}

const pathParts = (problem: FieldProblem) => problem.path.split('/').filter((part) => part && part !== 'input');

/** The field a server problem names (paths like `/url` or `/input/url`). */
export const problemField = (problem: FieldProblem) => pathParts(problem)[0] ?? '';

/**
 * Every name a problem can be shown under, the closest first: `/destination/credentials/password`
 * is `destination.credentials.password`, `destination.credentials` and `destination` (forms name
 * nested members with dots). List positions are dropped: `/destination/brokers/1` is `destination.brokers`.
 */
export const problemFields = (problem: FieldProblem) => {
  const parts = pathParts(problem).filter((part) => !/^\d+$/.test(part));
  return parts.map((_, i) => parts.slice(0, parts.length - i).join('.'));
};

/** The validator's wording (zod's, the URL rule's) said for a person, per field where it helps. */
const PLAIN: [field: string | null, pattern: RegExp, plain: string | ((m: RegExpExecArray) => string)][] = [
  ['events', /^Too small: expected array/, 'Choose at least one event.'],
  ['scopes', /^Too small: expected array/, 'Choose at least one scope.'],
  ['url', /https:\/\/<host>|must be https/, 'Use an https:// address without spaces, for example https://example.com/webhooks.'],
  [null, /^Too small: expected array/, 'Choose at least one.'],
  [null, /^Too small: expected string to have >=1 characters/, 'Fill this in.'],
  [null, /^Too big: expected string to have <=(\d+) characters/, (m) => `Use at most ${m[1]} characters.`],
  [null, /^Too big: expected array to have <=(\d+) items/, (m) => `Choose at most ${m[1]}.`],
  [null, /^Too small: expected number to be >=(\S+)/, (m) => `Use ${m[1]} or more.`],
  [null, /^Too big: expected number to be <=(\S+)/, (m) => `Use ${m[1]} or less.`],
];

export function plainMessage(field: string, message: string): string {
  for (const [name, pattern, plain] of PLAIN) {
    if (name !== null && name !== field) continue;
    const m = pattern.exec(message);
    if (m) return typeof plain === 'string' ? plain : plain(m);
  }
  return sentence(message);
}

/** The message for a field (`name`) among the server's field errors. */
export function fieldErrorsByName(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const byName: Record<string, string> = {};
  for (const problem of error.fieldErrors) {
    const message = plainMessage(problemField(problem), problem.message);
    for (const name of problemFields(problem)) byName[name] ??= message;
  }
  return byName;
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong. Try again.';
}
