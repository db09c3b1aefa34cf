// /graphql: who calls (a session or an API key), the caller's request limit (per key, or per
// client address without one), then the body under the API's limits (request-body.ts) before Yoga
// reads anything. The limits of the GraphQL
// document itself are Yoga plugins (src/graphql/limits.ts).
import { AppError } from '../errors/errors.ts';
import { authenticateGraphQLRequest, type BeforeLookup, type RequestAuth } from '../api/authenticate.ts';
import type { GraphQLServer } from '../api/yoga.ts';
import { pageMemory } from '../paging/page-budget.ts';
import { releaseRequestCaches, requestCaches } from '../graphql/context.ts';
import { invalidTokenHeaders, problemResponse } from '../errors/problem.ts';
import { assertJsonDepth, readJsonBody } from '../validation/request-body.ts';

/** What the HTTP app knows of the caller: how to count it (app.ts `admit`) and its address. */
interface GraphQLCaller {
  requestId: string;
  clientAddress: string;
  admit: (authenticate: (beforeLookup: BeforeLookup) => Promise<RequestAuth>) => Promise<{ auth: RequestAuth; limitHeaders: Record<string, string> }>;
  /** Counts `extra` more requests of the caller (GraphQLContext.chargeRequests), or throws 429 rate_limited. */
  charge: (principal: RequestAuth['principal'], extra: number) => Promise<void>;
}

export function createGraphQLEndpoint({ yoga }: { yoga: GraphQLServer }) {
  return async (request: Request, { requestId, clientAddress, admit, charge }: GraphQLCaller): Promise<Response> => {
    let limitHeaders: Record<string, string> = {};
    try {
      const admitted = await admit((beforeLookup) => authenticateGraphQLRequest(request, beforeLookup));
      limitHeaders = admitted.limitHeaders;
      const requestBody = await checkedInput(request);
      const responseCookies: string[] = [];
      const responseHeaders: Record<string, string> = {};
      const chargeRequests = (extra: number) => charge(admitted.auth.principal, extra);
      const context = { ...admitted.auth, requestId, responseCookies, responseHeaders, clientAddress, requestBody, chargeRequests };
      // Pothos' caches are keyed by an object this context holds (graphql/context.ts); Yoga executes
      // with a copy, which yoga.ts releases after execution, and this one goes when the answer is made.
      const response = await pageMemory.run(async (pageHold) => {
        const yogaContext = { ...context, pageHold, ...requestCaches() };
        try {
          return await yoga.fetch(request, yogaContext);
        } finally {
          releaseRequestCaches(yogaContext);
        }
      });
      for (const cookie of responseCookies) response.headers.append('Set-Cookie', cookie);
      // A refusal's own limit headers (a mutation field over the allowance) are newer than the admission's.
      for (const [name, value] of Object.entries({ ...limitHeaders, ...responseHeaders })) response.headers.set(name, value);
      // Answers are the caller's own, and some hold a secret shown once (createApiKey's value, a
      // subscription's signing secret): no cache on the way keeps any of them.
      response.headers.set('Cache-Control', 'no-store');
      return response;
    } catch (err) {
      if (!(err instanceof AppError)) return problemResponse(err, requestId, limitHeaders);
      return Response.json(
        { errors: [{ message: err.message, extensions: { code: err.code, status: err.status } }] },
        {
          status: err.status,
          headers: { 'X-Request-Id': requestId, ...limitHeaders, ...(err.code === 'invalid_token' ? invalidTokenHeaders : {}), ...err.headers },
        },
      );
    }
  };
}

/**
 * A POST's body, read under the REST rules (JSON media type, 1 MiB, nesting) and parsed, for Yoga to
 * take as it is; a GET's JSON parameters checked (the URL is bounded by Node's header limit,
 * 16 KiB, but nesting is not).
 */
async function checkedInput(request: Request): Promise<unknown> {
  if (request.method === 'POST') return readJsonBody(request);
  if (request.method === 'GET') {
    const params = new URL(request.url).searchParams;
    for (const name of ['variables', 'extensions']) {
      const value = params.get(name);
      if (value) assertJsonDepth(value, `The parameter \`${name}\``);
    }
  }
  return undefined;
}
