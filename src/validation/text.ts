// The input rules every string, time and integer a caller sends must pass, in one place: the zod
// helpers below build the REST schemas (and so the OpenAPI document), the services' checks of
// GraphQL input, and `findInputFault`, which the GraphQL layer runs over every field's arguments.
//
// The text rule: a string is a sequence of Unicode scalar values without control characters
// other than tab, line feed and carriage return. So NUL (which PostgreSQL text cannot hold),
// the other C0 controls and unpaired surrogates (which are not text at all and cannot be encoded
// as UTF-8) are refused; DEL, C1 controls and noncharacters are ordinary characters (Unicode
// Corrigendum #9 allows noncharacters in interchange). The rule applies to every field alike,
// single-line or not: one rule a client can implement once.
import { z } from 'zod';
import type { FieldError } from '../errors/errors.ts';

/** The text rule as a JSON Schema (ECMA-262, `u` flag) pattern; Python's `re` reads it the same way. */
export const TEXT_PATTERN = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uD800-\\uDFFF]*$';
const TEXT = new RegExp(TEXT_PATTERN, 'u');

export const TEXT_RULE_NOTE =
  'Text rule: no NUL or other control character except tab, line feed and carriage return, and no unpaired surrogate.';

const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `s` breaks the text rule (naming the rule and the first offending character), or null. */
export function textFault(s: string): string | null {
  if (TEXT.test(s)) return null;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) return 'breaks the text rule: contains U+0000 (NUL)';
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return `breaks the text rule: contains the control character ${hex(c)}`;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) return `breaks the text rule: contains the unpaired surrogate ${hex(c)}`;
  }
  return null;
}

/** Length in Unicode code points, as JSON Schema's maxLength counts (a string's `length` counts UTF-16 units). */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

interface TextOptions {
  /** At most this many characters (code points) as sent, white space included (JSON Schema's maxLength exactly). */
  max: number;
  /** At least this many characters, counted after trimming. */
  min?: number;
  /** Remove leading and trailing white space before the length is checked (and store it so). */
  trim?: boolean;
  description?: string;
}

/** A string field under the text rule. Its JSON Schema carries the rule as `pattern`, and `maxLength`. */
export function text({ max, min = 0, trim = false, description }: TextOptions) {
  // The maximum counts the string as sent, so the document's maxLength is the rule exactly (a
  // fuzzer or a generated client agrees with it); the minimum counts what is kept.
  let s = z
    .string()
    .regex(TEXT, { error: (issue) => textFault(String(issue.input)) ?? 'breaks the text rule' })
    .refine((v) => codePointLength(v) <= max, `must be at most ${max} characters`);
  if (trim) s = s.trim();
  if (min > 0) s = s.min(min, min === 1 ? (trim ? 'must not be empty or only white space' : 'must not be empty') : `must be at least ${min} characters`);
  const notes = [description, trim && 'Leading and trailing white space is removed before it is stored (the maximum length counts it as sent).', TEXT_RULE_NOTE];
  return s.meta({ maxLength: max, description: notes.filter(Boolean).join(' ') });
}

const MIN_YEAR = 1;
const MAX_YEAR = 9999;
const YEARS_NOTE = `Years ${MIN_YEAR} to ${MAX_YEAR} (UTC).`;
/** Whether a time falls in the years every store and client here can hold. */
export const inYears = (d: Date) => !Number.isNaN(d.getTime()) && d.getUTCFullYear() >= MIN_YEAR && d.getUTCFullYear() <= MAX_YEAR;
/** For strings the format check has already refused, one issue is enough. */
const unreadableOrInYears = (d: Date) => Number.isNaN(d.getTime()) || inYears(d);
const OUT_OF_YEARS = `must be a time between the years ${MIN_YEAR} and ${MAX_YEAR}`;

/** An ISO 8601 time with an offset (`Z` or `±hh:mm`), within the years PostgreSQL and every client can hold. */
export function dateTime(description?: string) {
  return z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 time with an offset, e.g. 2026-05-01T12:00:00Z' })
    .refine((s) => unreadableOrInYears(new Date(s)), OUT_OF_YEARS)
    .meta({ description: [description, YEARS_NOTE].filter(Boolean).join(' ') });
}

/** A calendar date `YYYY-MM-DD` within the same years. */
export function calendarDate(message = 'must be a date, YYYY-MM-DD') {
  return z.iso.date(message).refine((s) => unreadableOrInYears(new Date(`${s}T00:00:00Z`)), `must be a date between the years ${MIN_YEAR} and ${MAX_YEAR}`);
}

/**
 * An integer sent as text (query and path parameters): decimal digits only, so `0x10`, `1e2`,
 * ` 5`, `+5` and `05` are refused rather than read as numbers. Documented as `type: integer`.
 */
export function decimalInteger({ min, max, description }: { min: number; max: number; description?: string }) {
  return z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/, 'must be a decimal integer (digits only, no sign, spaces, exponent or leading zero)')
    // A number too large for a double would become Infinity, which zod reports as "not a number".
    .transform((s) => Math.min(Number(s), Number.MAX_SAFE_INTEGER))
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .meta({ type: 'integer', minimum: min, maximum: max, ...(description ? { description } : {}) });
}

/** Any JSON value (custom field values): every string in it, member names included, under the text rule. */
export const jsonValue = () =>
  z.unknown().superRefine((value, ctx) => {
    const fault = findInputFault(value);
    if (fault) ctx.addIssue({ code: 'custom', path: fault.path, message: fault.message });
  });

/**
 * The first string (or member name) that breaks the text rule, or time outside the years, in an
 * input value of any depth, with its path. Iterative, so deep nesting cannot exhaust the stack.
 */
export function findInputFault(value: unknown): { path: (string | number)[]; message: string } | null {
  // Each entry links to its parent rather than carrying its path: copying paths would make a
  // deeply nested value cost the square of its depth.
  interface Node {
    value: unknown;
    key?: string | number;
    parent?: Node;
  }
  const pathOf = (node: Node, last?: string) => {
    const path: (string | number)[] = last === undefined ? [] : [last];
    for (let n: Node | undefined = node; n?.parent; n = n.parent) path.push(n.key!);
    return path.reverse();
  };
  const stack: Node[] = [{ value }];
  while (stack.length) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') {
      const fault = textFault(v);
      if (fault) return { path: pathOf(node), message: fault };
    } else if (v instanceof Date) {
      if (!inYears(v)) return { path: pathOf(node), message: OUT_OF_YEARS };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: node });
    } else if (v !== null && typeof v === 'object') {
      for (const [key, member] of Object.entries(v).reverse()) {
        const fault = textFault(key);
        if (fault) return { path: pathOf(node, key), message: `member name ${fault}` };
        stack.push({ value: member, key, parent: node });
      }
    }
  }
  return null;
}

/** A fault as a field error: its path as a JSON pointer (RFC 6901). */
export const toFieldError = (fault: { path: (string | number)[]; message: string }, base = ''): FieldError => ({
  path: base + fault.path.map((p) => '/' + String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join(''),
  message: fault.message,
});

/**
 * An e-mail address: zod's default rule (letters, digits and `_'+-.` before the `@`, a dotted host
 * with a top-level name of letters), with a host as host names must be (RFC 1123, and IDNA's
 * reserved `??--` label start): labels of at most 63 characters that neither start nor end with
 * a hyphen, at most 253 in all; at most 64 characters before the `@`. What the OpenAPI `email`
 * format's checkers accept.
 */
const LABEL = '(?![A-Za-z0-9]{2}--)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const EMAIL = new RegExp(`^(?=[^@]{1,64}@)(?!\\.)(?!.*\\.\\.)[A-Za-z0-9_'+\\-.]*[A-Za-z0-9_+-]@(?=[^@]{1,253}$)(?:${LABEL}\\.)+[A-Za-z]{2,63}$`);
// One complaint per address: a too long one breaks the pattern too (abort: the length is not checked again).
export const emailAddress = () => z.email({ pattern: EMAIL, abort: true }).max(254);
