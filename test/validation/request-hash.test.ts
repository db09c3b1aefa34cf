// Idempotency-Key request hashing (src/idempotency/idempotency.service.ts) on hostile bodies: a
// body nested far deeper than any limit must hash, not overflow the stack (HTTP bodies are also
// limited in depth before parsing; the hash does not rely on it). The canonical text is
// unchanged from the serializer it replaced, so keys stored before the change still match.
import { describe, expect, it } from 'vitest';
import { stringify } from 'safe-stable-stringify';
import { requestHash } from '../../src/idempotency/idempotency.service.ts';
import { canonicalJson } from '../../src/validation/canonical-json.ts';

const nested = (depth: number, leaf: unknown, wrap: (v: unknown) => unknown) => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = wrap(v);
  return v;
};

describe('requestHash', () => {
  it('hashes bodies nested 10,000 and 200,000 deep', () => {
    for (const depth of [10_000, 200_000]) {
      const arrays = { subject: 'x', fields: [{ fieldId: 'f', value: nested(depth, 'deep', (v) => [v]) }] };
      const objects = { subject: 'x', fields: [{ fieldId: 'f', value: nested(depth, 'deep', (v) => ({ a: v })) }] };
      expect(requestHash('POST', '/public/v1/tickets', arrays)).toMatch(/^[0-9a-f]{64}$/);
      expect(requestHash('POST', '/public/v1/tickets', objects)).not.toBe(requestHash('POST', '/public/v1/tickets', arrays));
    }
  });

  it('ignores member order and nothing else', () => {
    const a = requestHash('POST', '/p', { b: 1, a: [1, { y: 2, x: 'é' }] });
    expect(requestHash('post', '/p', { a: [1, { x: 'é', y: 2 }], b: 1 })).toBe(a);
    expect(requestHash('POST', '/p', { a: [{ x: 'é', y: 2 }, 1], b: 1 })).not.toBe(a);
    expect(requestHash('POST', '/q', { b: 1, a: [1, { y: 2, x: 'é' }] })).not.toBe(a);
  });

  it('writes the same canonical text as safe-stable-stringify did', () => {
    const samples: unknown[] = [
      null,
      'a"b\\c\n\u0000\ud800😀',
      [1, -0, 1.5e300, true, null, 'x', [], {}],
      { z: 1, a: { c: [3, { b: 2, a: 1 }], b: null }, 'é': 'accent', '10': 'ten', '9': 'nine', '': 'empty' },
      ['POST', '/public/v1/tickets', { subject: 'Printer', fields: [{ fieldId: 'fld_1', value: ['a', 'b'] }] }],
    ];
    for (const s of samples) expect(canonicalJson(s)).toBe(stringify(s));
  });
});
