// A typed client for the Ticketing API: openapi-fetch over the types that openapi-typescript
// generates from the served document (`npx openapi-typescript <base>/openapi.json -o openapi-types.ts`).
// Paths, parameters, bodies and answers are checked by the compiler; nothing here is hand-typed.
import createClient from 'openapi-fetch';
import type { paths } from './openapi-types.ts';

export type NewTicket = paths['/tickets']['post']['requestBody']['content']['application/json'];
export type Ticket = paths['/tickets']['post']['responses'][201]['content']['application/json'];
export type TicketFilter = Omit<NonNullable<paths['/tickets']['get']['parameters']['query']>, 'cursor'>;
export type TicketChange = paths['/tickets/{id}']['patch']['requestBody']['content']['application/json'];

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

/**
 * Changes a ticket only if nobody changed it since it was read: reads it (its `ETag` is its
 * version), lets `edit` decide the change from what it is now, and sends that with `If-Match`.
 * If another change came in between (412 `precondition_failed`), reads it again and retries, so
 * a change is never made on the basis of a state that no longer holds.
 */
export async function editTicket(client: TicketingClient, id: number, edit: (current: Ticket) => TicketChange | null): Promise<Ticket> {
  for (let attempt = 1; ; attempt++) {
    const read = await client.GET('/tickets/{id}', { params: { path: { id } } });
    if (!read.data) throw new ApiError(read.response.status, read.error?.code, read.error?.detail);
    const change = edit(read.data);
    if (!change) return read.data;
    const etag = read.response.headers.get('ETag') ?? `"${read.data.version}"`;
    const { data, error, response } = await client.PATCH('/tickets/{id}', { params: { path: { id }, header: { 'If-Match': etag } }, body: change });
    if (data) return data;
    if (response.status !== 412 || attempt >= MAX_ATTEMPTS) throw new ApiError(response.status, error?.code, error?.detail);
  }
}

/**
 * Catching up with the events feed: every event after `from` (an event id you processed, or the
 * `cursor` this function returned last time), oldest first. Returns the events and the cursor to
 * store and pass next time; it is never null, even when nothing was new.
 */
export async function eventsSince(client: TicketingClient, from: { after: string } | { cursor: string }) {
  const pages = [];
  let query: { after?: string; cursor?: string } = from;
  for (;;) {
    const { data, error, response } = await client.GET('/events', { params: { query: { ...query, limit: 100 } } });
    if (!data) throw new ApiError(response.status, error?.code, error?.detail);
    pages.push(data.data);
    // Catch-up pages always carry a cursor; an empty page means: nothing more for now.
    if (!data.nextCursor) throw new Error('a catch-up page without nextCursor');
    if (!data.data.length) return { events: pages.flat(), cursor: data.nextCursor };
    query = { cursor: data.nextCursor };
  }
}
/** One entry of GET /events: exactly the body a webhook delivery of that event carries. */
export type FeedEvent = Awaited<ReturnType<typeof eventsSince>>['events'][number];

const backoffMs = (attempt: number) => 500 * 2 ** (attempt - 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
