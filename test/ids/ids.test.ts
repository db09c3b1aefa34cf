// Prefixed ULIDs (src/ids.ts) from the pooled random source: well formed, unique, time-ordered.
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';

describe('newId', () => {
  it('gives unique, well-formed ids in creation order, past a refill of the random pool', () => {
    const ids = Array.from({ length: 1000 }, () => newId('evt'));
    for (const id of ids) expect(id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
