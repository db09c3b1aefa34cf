// A typed client for the Ticketing API: openapi-fetch over the types that openapi-typescript
// generates from the served document (`npx openapi-typescript <base>/openapi.json -o openapi-types.ts`).
// Paths, parameters, bodies and answers are checked by the compiler; nothing here is hand-typed.
import createClient from 'openapi-fetch';
import type { paths } from './openapi-types.ts';

export type NewTicket = paths['/tickets']['post']['requestBody']['content']['application/json'];
export type Ticket = paths['/tickets']['post']['responses'][201]['content']['application/json'];
export type TicketFilter = Omit<NonNullable<paths['/tickets']['get']['parameters']['query']>, 'cursor'>;

export function createTicketingClient(options: { baseUrl: string; apiKey: string; fetch?: typeof fetch }) {
  return createClient<paths>({
    baseUrl: options.baseUrl, // e.g. https://tickets.example.com/public/v1
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: options.fetch,
  });
}
export type TicketingClient = ReturnType<typeof createTicketingClient>;

/** A refusal of the API: `code` is the stable machine word to branch on (`detail` is for people). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    detail: string | undefined,
  ) {
    super(`${status} ${code ?? 'error'}: ${detail ?? 'no detail'}`);
  }
}

const MAX_ATTEMPTS = 5;

/**
 * Creates the ticket once, however often this runs with the same `idempotencyKey`. Choose the key
 * when you decide to create the ticket (and store it with your own record), so that a retry after
 * a timeout, a lost answer or a crash of your process sends the same key: the API then answers
 * the stored first answer (`replayed`) instead of creating a second ticket.
 */
export async function createTicket(client: TicketingClient, ticket: NewTicket, idempotencyKey: string): Promise<{ ticket: Ticket; replayed: boolean }> {
  for (let attempt = 1; ; attempt++) {
    let result;
    try {
      result = await client.POST('/tickets', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: ticket });
    } catch (err) {
      // No answer (connection reset, timeout): the ticket may or may not exist; the same key makes the retry safe.
      if (attempt >= MAX_ATTEMPTS) throw err;
      await sleep(backoffMs(attempt));
      continue;
    }
    const { data, error, response } = result;
    if (data) return { ticket: data, replayed: response.headers.get('Idempotent-Replayed') === 'true' };
    // 409: the first request with this key still runs; 429: over the rate limit; 5xx: nothing was committed.
    const retryable = response.status === 409 || response.status === 429 || response.status >= 500;
    if (!retryable || attempt >= MAX_ATTEMPTS) throw new ApiError(response.status, error?.code, error?.detail);
    const retryAfter = Number(response.headers.get('Retry-After'));
    await sleep(retryAfter > 0 ? retryAfter * 1000 : backoffMs(attempt));
  }
}

/** Every ticket matching `filter`, newest first, page by page (follows `nextCursor` until it is null). */
export async function* listTickets(client: TicketingClient, filter: TicketFilter = {}): AsyncGenerator<Ticket> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET('/tickets', { params: { query: { ...filter, cursor } } });
    if (!data) throw new ApiError(response.status, error?.code, error?.detail);
    yield* data.data;
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
}

const backoffMs = (attempt: number) => 500 * 2 ** (attempt - 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
