// The one error table: every failure the API reports has a stable `code`; this table maps it
// to the HTTP status and problem title. GraphQL reports the same code in extensions.code.

export const errorTable = {
  invalid_json: { status: 400, title: 'The request body is not valid JSON' },
  invalid_request: { status: 400, title: 'The request is malformed' },
  invalid_header: { status: 400, title: 'A request header is malformed' },
  query_too_complex: { status: 400, title: 'The GraphQL document exceeds a size, depth or cost limit' },
  too_many_mutations: { status: 400, title: 'The GraphQL document runs more mutation fields than one request may' },
  invalid_token: { status: 401, title: 'The API key is missing, unknown, revoked or expired' },
  unauthenticated: { status: 401, title: 'Sign-in required' },
  insufficient_scope: { status: 403, title: 'The API key lacks the scope this call needs' },
  forbidden: { status: 403, title: 'Your role does not allow this action' },
  csrf_failed: { status: 403, title: 'The CSRF token is missing or wrong' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  idempotency_request_in_progress: { status: 409, title: 'A request with this Idempotency-Key is still in progress' },
  last_administrator: { status: 409, title: 'The workspace would be left without an active administrator' },
  recovery_in_progress: { status: 409, title: 'A recovery of this subscription is still running' },
  precondition_failed: { status: 412, title: 'The record changed since the version the request names (If-Match)' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The request body must be JSON' },
  validation_failed: { status: 422, title: 'The request did not pass validation' },
  idempotency_key_reused: { status: 422, title: 'This Idempotency-Key was used with another request' },
  subscription_limit_reached: { status: 422, title: 'The webhook subscription limit is reached' },
  api_key_limit_reached: { status: 422, title: 'The workspace has as many API keys as it may' },
  held_delivery_limit_reached: { status: 422, title: 'The paused subscription holds as many deliveries as it may' },
  invalid_state_transition: { status: 422, title: 'The action is not possible in the current condition' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service temporarily unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorTable;

export interface FieldError {
  /** JSON-pointer-like path of the offending member, e.g. `/fields/0/value`. */
  path: string;
  message: string;
}

/** An expected failure: reported to the client with its code; never masked. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail?: string,
    opts: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail ?? errorTable[code].title);
    this.name = 'AppError';
    this.code = code;
    this.status = errorTable[code].status;
    this.errors = opts.errors;
    this.headers = opts.headers;
  }
}

export const problemTypeUri = (code: ErrorCode) => `urn:ticketing:problem:${code.replaceAll('_', '-')}`;

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string;
  errors?: FieldError[];
}

export function toProblem(err: AppError, requestId: string): Problem {
  return {
    type: problemTypeUri(err.code),
    title: errorTable[err.code].title,
    status: err.status,
    detail: err.message,
    code: err.code,
    requestId,
    ...(err.errors?.length ? { errors: err.errors } : {}),
  };
}

/** zod issues as our field errors (paths as JSON pointers). */
export function fromZodIssues(issues: { path: PropertyKey[]; message: string; keys?: string[] }[], base = ''): FieldError[] {
  const pointer = (path: PropertyKey[]) => base + (path.length ? '/' + path.map(String).join('/') : '');
  // zod reports unknown members once for their object; name each member's own path instead.
  return issues.flatMap((i) =>
    i.keys?.length
      ? i.keys.map((key) => ({ path: pointer([...i.path, key]), message: 'is not a known member' }))
      : [{ path: pointer(i.path), message: i.message }],
  );
}
