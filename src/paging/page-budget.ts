// The byte budget of one page: a list page stops early, with a cursor to the rest, once its
// rows' text would pass PAGE_BYTE_BUDGET. A page of 100 KB articles or 64 KiB ticket
// descriptions would otherwise be ~10 MB of rows, then again as the GraphQL result and again
// as JSON, in a heap of ~100 MB. Rows are sized in SQL (octet_length of their large columns,
// before loading them), so a cut page never loads the rows it leaves out.
import { AppError } from '../errors/errors.ts';

/** What a page's large text may add up to, in bytes (UTF-8 as stored). */
export const PAGE_BYTE_BUDGET = 4 * 1024 * 1024;

/** What a row adds besides its sized columns (ids, dates, names, JSON punctuation): an upper estimate. */
export const ROW_OVERHEAD_BYTES = 512;

/**
 * How many of the leading rows fit the budget, given each row's size in page order. Always at
 * least one: a row larger than the budget alone still makes a page, so paging always advances.
 */
export function rowsWithinBudget(sizes: readonly number[], budget = PAGE_BYTE_BUDGET): number {
  let total = 0;
  for (let i = 0; i < sizes.length; i++) {
    total += sizes[i] + ROW_OVERHEAD_BYTES;
    if (total > budget) return Math.max(i, 1);
  }
  return sizes.length;
}

/** What one request has reserved; the request hands it down to whatever pages a list (GraphQL context `pageHold`). */
export interface PageHold {
  held: number;
}

/**
 * Page text in flight per process: requests reserve their pages' sized bytes and hold them until
 * their answer is made (`run` around the request). Two full pages at once; smaller pages share
 * the rest. A request that finds no room waits in line for up to `waitMs`, then gets 503
 * `service_unavailable` with Retry-After (the server is busy, not the caller over a quota).
 * Outside a request (scripts, service tests: no hold) nothing is reserved. The hold is passed
 * explicitly, not through an AsyncLocalStorage: one of those turns on Node's promise hooks for
 * every promise of the process, which cost every request ~3% of its CPU.
 */
export class PageMemory {
  private inFlight = 0;
  private readonly queue: { bytes: number; grant: () => void }[] = [];

  constructor(
    readonly capacity = 2 * PAGE_BYTE_BUDGET,
    readonly waitMs = 2_000,
  ) {}

  /** Runs one request with its hold; whatever it reserved is released when it settles. */
  async run<T>(fn: (hold: PageHold) => Promise<T>): Promise<T> {
    const hold: PageHold = { held: 0 };
    try {
      return await fn(hold);
    } finally {
      this.release(hold.held);
    }
  }

  /** Reserves a page's bytes for the rest of the request, waiting in line for room. */
  async reserve(request: PageHold | undefined, bytes: number): Promise<void> {
    if (!request) return;
    // A single row larger than the whole capacity still gets served, alone.
    const want = Math.min(bytes, this.capacity);
    if (!this.queue.length && this.inFlight + want <= this.capacity) {
      this.inFlight += want;
      request.held += want;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        bytes: want,
        grant: () => {
          clearTimeout(timer);
          request.held += want;
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(entry), 1);
        this.grantWaiting();
        reject(new AppError('service_unavailable', 'Too many large pages are being served; retry shortly', { headers: { 'Retry-After': '1' } }));
      }, this.waitMs);
      this.queue.push(entry);
    });
  }

  private release(bytes: number) {
    this.inFlight -= bytes;
    this.grantWaiting();
  }

  /** First come, first served: a large page at the head is not overtaken by small ones. */
  private grantWaiting() {
    while (this.queue.length && this.inFlight + this.queue[0].bytes <= this.capacity) {
      const next = this.queue.shift()!;
      this.inFlight += next.bytes;
      next.grant();
    }
  }
}

/** The process's page memory; the HTTP app runs each API request in it. */
export const pageMemory = new PageMemory();
