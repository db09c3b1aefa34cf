// The e-mail rule (src/validation/text.ts emailAddress): zod's address rule with host labels that
// neither start nor end with a hyphen, which schemathesis's `email` format check found accepted.
import { describe, expect, it } from 'vitest';
import { emailAddress } from '../../src/validation/text.ts';

describe('emailAddress', () => {
  it('accepts ordinary addresses and refuses hosts whose labels start or end with a hyphen', () => {
    const ok = (v: string) => emailAddress().safeParse(v).success;
    for (const v of ['ana@example.com', "o'neil+tag@mail.example.co", 'a_b-c@x-y.example.org']) expect(ok(v), v).toBe(true);
    for (const v of ['a@h-.example.com', 'a@-h.example.com', 'a@example', '.a@example.com', 'a..b@example.com', `${'a'.repeat(250)}@example.com`]) expect(ok(v), v).toBe(false);
  });
});
