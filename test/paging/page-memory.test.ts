// The per-process bound on page text in flight (paging/page-budget.ts).
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/errors.ts';
import { PageMemory, pageMemory } from '../../src/paging/page-budget.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';

/** A request that reserves `bytes` and holds them until `done` resolves. */
function holding(memory: PageMemory, bytes: number) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let reserved!: () => void;
  const granted = new Promise<void>((resolve) => (reserved = resolve));
  const request = memory.run(async (hold) => {
    await memory.reserve(hold, bytes);
    reserved();
    await done;
  });
  return { granted, finish, request };
}

describe('page memory in flight', () => {
  it('lets a request wait for room that another request frees, first come first served', async () => {
    const memory = new PageMemory(100, 60_000);
    const first = holding(memory, 80);
    await first.granted;
    const order: string[] = [];
    const large = holding(memory, 60);
    const small = holding(memory, 10);
    void large.granted.then(() => order.push('large'));
    void small.granted.then(() => order.push('small'));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]); // 10 would fit, but it is behind the 60 that does not

    first.finish();
    await first.request;
    await Promise.all([large.granted, small.granted]);
    expect(order).toEqual(['large', 'small']);
    large.finish();
    small.finish();
    await Promise.all([large.request, small.request]);
  });

  it('refuses with 503 service_unavailable and Retry-After when no room comes in time', async () => {
    const memory = new PageMemory(100, 20);
    const first = holding(memory, 100);
    await first.granted;
    const refused = await memory.run((hold) => memory.reserve(hold, 1)).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'Retry-After': '1' } });
    first.finish();
    await first.request;
    // The refused request held nothing: the whole capacity is free again.
    const again = holding(memory, 100);
    await again.granted;
    again.finish();
    await again.request;
  });

  it('reserves nothing outside a request', async () => {
    const memory = new PageMemory(1, 10);
    await memory.reserve(undefined, 1_000);
    await memory.run((hold) => memory.reserve(hold, 1));
  });

  it('answers a list request 503 over REST while the process has no page memory left', { timeout: 30_000 }, async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['kb:write'] });
    expect((await api('POST', '/kb/articles', { key: key.value, body: { title: 'T', body: 'B' } })).status).toBe(201);
    const busy = holding(pageMemory, pageMemory.capacity);
    await busy.granted;
    try {
      const res = await api('GET', '/kb/articles', { key: key.value });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('service_unavailable');
      expect(res.headers.get('retry-after')).toBe('1');
      // Answers that page no large text are not held up.
      expect((await api('GET', '/me', { key: key.value })).status).toBe(200);
    } finally {
      busy.finish();
      await busy.request;
    }
    expect((await api('GET', '/kb/articles', { key: key.value })).status).toBe(200);
  });
});
