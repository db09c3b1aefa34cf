// The e-mail rule (src/validation/text.ts emailAddress): zod's address rule with a host as host
// names must be, which schemathesis's `email` format check (jsonschema-rs) found accepted otherwise.
import { describe, expect, it } from 'vitest';
import { emailAddress } from '../../src/validation/text.ts';

describe('emailAddress', () => {
  it('accepts ordinary addresses and refuses hosts whose labels start or end with a hyphen', () => {
    const ok = (v: string) => emailAddress().safeParse(v).success;
    for (const v of ['ana@example.com', "o'neil+tag@mail.example.co", 'a_b-c@x-y.example.org']) expect(ok(v), v).toBe(true);
    for (const v of ['a@h-.example.com', 'a@-h.example.com', 'a@Wf--x.example.com', `a@${'h'.repeat(64)}.com`, `a@${'abcdefghij.'.repeat(25)}com`, `${'a'.repeat(65)}@example.com`, 'a@example', '.a@example.com', 'a..b@example.com']) expect(ok(v), v).toBe(false);
  });
});
