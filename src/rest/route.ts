// The shape of one REST route: data, not code paths. One handler (rest-handler.ts) runs every
// route; the OpenAPI document is generated from the same entries.
import { z } from 'zod';
import type { ErrorCode } from '../errors/errors.ts';
import { PAGE_INFO_SELECTION } from '../paging/paging.ts';

type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  /** The request's headers (e.g. If-Match, read by rest/conditional.ts). */
  headers: Headers;
}

export interface RouteDef {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path relative to /public/v1, e.g. `/boards/{id}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** The GraphQL operation this route runs; its single root field is the result. */
  operation: string;
  /** Path parameters; a value that does not parse answers 404 (no such record). */
  params?: z.ZodObject;
  /** Query parameters; a value that does not parse, or a parameter it does not name, answers 422. */
  query?: z.ZodObject;
  /** The JSON body; a body that does not parse answers 422 with `errors[]`. */
  body?: z.ZodType;
  /** How path, query and body become the operation's variables. */
  variables?: (input: RouteInput) => Record<string, unknown>;
  /** Success status (200 unless said). */
  status?: number;
  /** The success status told by the answer itself (a re-send still running: 202); `status` otherwise. */
  statusOf?: (data: unknown) => number | undefined;
  /** Further success statuses `statusOf` may answer, for the OpenAPI document: status → description. */
  otherSuccess?: Record<number, string>;
  /** The root field is a connection: answer `{data, nextCursor}` with a Link header. */
  paged?: boolean;
  /** Honours the Idempotency-Key header. */
  idempotent?: boolean;
  /** The answer is one versioned record (a `version` member): it carries `ETag: "<version>"`. */
  etag?: boolean;
  /** The answer holds a secret shown once (a signing secret): `Cache-Control: no-store`, so no cache on the way keeps it. */
  carriesSecret?: boolean;
  /** Honours `If-Match` (its `variables` pass ifMatchVersions on): a stale version answers 412 `precondition_failed`. */
  ifMatch?: boolean;
  /** Each item of a paged answer is a JSON value, described by this schema rather than by its GraphQL type (the events feed). */
  itemSchema?: Record<string, unknown>;
  /** Codes of its domain's rules this route can answer besides the common ones (e.g. `invalid_state_transition`). */
  codes?: ErrorCode[];
  /** An example of the success answer, for the OpenAPI document (it must fit the answer's schema: the linters check). */
  example?: unknown;
}

/**
 * Unknown query parameters are refused (422 naming each), as Stripe does, rather than ignored: a
 * misspelt filter (`?stat=open`) would otherwise silently answer an unfiltered list.
 */
export const defineRoutes = (routes: RouteDef[]): RouteDef[] => routes.map((r) => ({ ...r, query: (r.query ?? z.object({})).strict() }));

/** An integer id in a path (users, tickets, articles): a positive 32-bit integer; anything else
 * would never match a record, so it answers 404 like one that does not exist. */
export const intIdParam = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/)
  .transform(Number)
  .pipe(z.number().max(2 ** 31 - 1))
  .meta({ type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 });

/**
 * The GraphQL operation of a paged route: query `name` reads the connection `field` with `first`
 * and `after` and the arguments in `args` (argument → its variable's declaration, e.g.
 * `{ ticketId: '$ticketId: Int!' }`), selecting `selection` on each node (none: a scalar node).
 */
export function pagedOperation(name: string, field: string, selection: string, args: Record<string, string> = {}): string {
  const declared = ['$first: Int', '$after: String', ...Object.values(args)].join(', ');
  const passed = ['first: $first', 'after: $after', ...Object.entries(args).map(([arg, decl]) => `${arg}: ${decl.split(':')[0]}`)].join(', ');
  return `query ${name}(${declared}) {
  ${field}(${passed}) {
    edges { node${selection ? ` { ${selection} }` : ''} }
    ${PAGE_INFO_SELECTION}
  }
}`;
}
