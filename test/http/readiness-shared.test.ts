// /readyz is public: however many callers ask, the database and Temporal are asked at most once a
// second (src/http/health.ts). Counted with a hand-driven clock, so nothing here depends on timing.
import { describe, expect, it } from 'vitest';
import { healthRoutes } from '../../src/http/health.ts';

describe('/readyz answers from a result at most a second old', () => {
  it('runs each check once for a burst of concurrent and rapid calls, and again once the result is a second old', async () => {
    let clock = 10_000;
    const calls = { database: 0, temporal: 0 };
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const routes = healthRoutes(
      {
        database: async () => {
          calls.database++;
          await gate;
        },
        temporal: async () => void calls.temporal++,
      },
      { now: () => clock },
    );
    const get = async () => {
      const res = await routes.fetch(new Request('http://localhost/readyz'));
      return { status: res.status, body: await res.json() };
    };
    // 50 at once while the first run is still waiting for the database.
    const burst = Array.from({ length: 50 }, () => get());
    release();
    const answers = await Promise.all(burst);
    expect(answers.every((a) => a.status === 200 && a.body.status === 'ready')).toBe(true);
    expect(calls).toEqual({ database: 1, temporal: 1 });
    // Rapid calls within the second: the same result.
    for (const ms of [1, 500, 999]) {
      clock = 10_000 + ms;
      expect((await get()).status).toBe(200);
    }
    expect(calls).toEqual({ database: 1, temporal: 1 });
    // A second later: asked again, once.
    clock = 11_000;
    await Promise.all([get(), get(), get()]);
    expect(calls).toEqual({ database: 2, temporal: 2 });
  });
});
