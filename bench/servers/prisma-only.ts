// The "Prisma-only" baseline: the same work as our routes (authentication through the same
// cached apiKeyService, the same per-key rate limit with its headers, then the same service and
// repository calls) in a bare node:http handler, with no GraphQL, REST facade or Hono in between.
// Our app's throughput against this one is the cost of the facade and GraphQL. The rate limit
// is a product requirement of every answer (RateLimit headers, 429), not part of the facade, so
// the baseline pays it too: the in-process limiter, as our app uses without REDIS_URL.
import http from 'node:http';
import { apiKeyService } from '../../src/api-keys/api-key.service.ts';
import { boardService } from '../../src/boards/board.service.ts';
import { ticketService } from '../../src/tickets/ticket.service.ts';
import { requestHash, runIdempotent, type IdempotencyClaim } from '../../src/idempotency/idempotency.service.ts';
import { DEFAULT_PAGE_SIZE } from '../../src/paging/paging.ts';
import { AppError } from '../../src/errors/errors.ts';
import { createRequestRateLimiter } from '../../src/rate-limit/request-rate-limiter.ts';
import { readJson, reportWhenListening } from './listen.ts';

const rateLimiter = createRequestRateLimiter();

async function answer(req: http.IncomingMessage): Promise<{ status: number; body: unknown; headers: Record<string, string> }> {
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  const principal = await apiKeyService.authenticate(token);
  const headers = await rateLimiter.admit(principal);
  const { status, body } = await work(req, principal);
  return { status, body, headers };
}

async function work(req: http.IncomingMessage, principal: Awaited<ReturnType<typeof apiKeyService.authenticate>>): Promise<{ status: number; body: unknown }> {
  const path = req.url ?? '/';
  if (req.method === 'GET' && path === '/public/v1/me') {
    const { apiKey, user, workspace, limits } = principal;
    return {
      status: 200,
      body: {
        apiKey: { id: apiKey.id, name: apiKey.name, prefix: apiKey.prefix, scopes: apiKey.scopes },
        serviceUser: user,
        workspace: { domain: workspace.domain, name: workspace.name },
        limits,
      },
    };
  }
  if (req.method === 'GET' && path === '/public/v1/boards') {
    const { edges, pageInfo } = await boardService.list(principal, { first: DEFAULT_PAGE_SIZE });
    const data = edges.map(({ node: b }) => ({
      id: b.id,
      name: b.name,
      fields: b.fields.map((f) => ({ id: f.id, name: f.name, type: f.type, required: f.required, options: f.options })),
      states: b.states.map((s) => ({ id: s.id, name: s.name, category: s.category })),
      priorities: b.priorities,
    }));
    return { status: 200, body: { data, nextCursor: pageInfo.hasNextPage ? pageInfo.endCursor : null } };
  }
  if (req.method === 'GET' && path === '/public/v1/tickets') {
    const connection = await ticketService.list(principal, {}, { first: DEFAULT_PAGE_SIZE });
    const { edges, pageInfo } = connection;
    return { status: 200, body: { data: edges.map((e) => e.node), nextCursor: pageInfo.hasNextPage ? (pageInfo.endCursor ?? null) : null } };
  }
  if (req.method === 'POST' && path === '/public/v1/tickets') {
    const body = await readJson(req);
    const create = async (claim?: IdempotencyClaim) => ({ status: 201, body: await ticketService.create(principal, body, claim), headers: {} });
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string') return create();
    return runIdempotent({ apiKeyId: principal.apiKey.id, key, requestHash: requestHash('POST', path, body), requestId: key, successStatus: 201 }, create);
  }
  return { status: 404, body: { code: 'not_found' } };
}

const server = http.createServer((req, res) => {
  answer(req).then(
    ({ status, body, headers }) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    },
    (err: unknown) => {
      const status = err instanceof AppError ? err.status : 500;
      res.writeHead(status, { 'Content-Type': 'application/json', ...(err instanceof AppError ? err.headers : {}) });
      res.end(JSON.stringify({ code: err instanceof AppError ? err.code : 'internal', detail: (err as Error).message }));
    },
  );
});
server.listen(0, '127.0.0.1');
reportWhenListening(server);
