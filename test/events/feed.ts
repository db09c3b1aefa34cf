// Reading GET /events as a consumer does, for the feed's tests.
import { expect } from 'vitest';
import { api } from '../support/fixtures.ts';

export const feed = (key: string, query = '') => api('GET', `/events${query ? `?${query}` : ''}`, { key });

/** Follows the feed from `after` until `until` holds for what was seen; each poll continues from the last nextCursor. */
export async function follow(key: string, after: string, until: (seen: any[]) => boolean, opts: { limit?: number; polls?: number } = {}) {
  const seen: any[] = [];
  let query = `after=${after}&limit=${opts.limit ?? 100}`;
  for (let i = 0; i < (opts.polls ?? 2000) && !until(seen); i++) {
    const res = await feed(key, query);
    expect(res.status, res.text).toBe(200);
    expect(res.body.nextCursor).toEqual(expect.any(String));
    seen.push(...res.body.data);
    query = `cursor=${encodeURIComponent(res.body.nextCursor)}&limit=${opts.limit ?? 100}`;
    if (!res.body.data.length) await new Promise((r) => setTimeout(r, 20));
  }
  return seen;
}
