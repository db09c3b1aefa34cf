// The rules of src/validation/text.ts on their own.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TEXT_PATTERN, codePointLength, dateTime, decimalInteger, findInputFault, text, textFault } from '../../src/validation/text.ts';

describe('the text rule', () => {
  it('refuses NUL, C0 controls but tab, LF and CR, and unpaired surrogates, naming the rule and the character', () => {
    expect(textFault('a\u0000')).toBe('breaks the text rule: contains U+0000 (NUL)');
    expect(textFault('a\u001b[2J')).toBe('breaks the text rule: contains the control character U+001B');
    expect(textFault('\u000b')).toBe('breaks the text rule: contains the control character U+000B');
    expect(textFault('a\ud800')).toBe('breaks the text rule: contains the unpaired surrogate U+D800');
    expect(textFault('\udfffa')).toBe('breaks the text rule: contains the unpaired surrogate U+DFFF');
    expect(textFault('\ud83d\ud83d\ude00')).toBe('breaks the text rule: contains the unpaired surrogate U+D83D');
  });

  it('accepts any other text', () => {
    for (const s of ['', 'plain', 'tab\there', 'lines\r\n\n', '😀 astral', '\u007f DEL and \u0085 NEL', 'non\uFFFEchar \uFDD0', '\u{10FFFF}']) {
      expect(textFault(s), JSON.stringify(s)).toBeNull();
    }
  });

  it('is the same rule as the pattern the OpenAPI document states', () => {
    const pattern = new RegExp(TEXT_PATTERN, 'u');
    for (const s of ['a\u0000', 'a\u0001', 'a\u001f', 'a\ud800', 'ok', 'tab\t', '😀', 'a\u007f']) {
      expect(pattern.test(s), JSON.stringify(s)).toBe(textFault(s) === null);
    }
  });

  it('counts lengths in code points, as JSON Schema does, as sent (white space included), and trims what it keeps', () => {
    expect(codePointLength('😀😀')).toBe(2);
    expect(codePointLength('a\ud800b')).toBe(3);
    const subject = text({ max: 3, min: 1, trim: true });
    expect(subject.parse(' 😀 ')).toBe('😀');
    // The document's maxLength is the rule exactly: longer as sent is refused, even if trimming would fit.
    expect(subject.safeParse('  😀😀😀  ').error?.issues[0]?.message).toBe('must be at most 3 characters');
    expect(subject.safeParse('abcd').error?.issues[0]?.message).toBe('must be at most 3 characters');
    expect(subject.safeParse('   ').error?.issues[0]?.message).toBe('must not be empty or only white space');
    expect(z.toJSONSchema(subject)).toMatchObject({ type: 'string', maxLength: 3, minLength: 1, pattern: TEXT_PATTERN });
  });
});

describe('times', () => {
  it('accepts the years 1 to 9999 in UTC and refuses the rest', () => {
    const t = dateTime();
    expect(t.safeParse('0001-01-01T00:00:00Z').success).toBe(true);
    expect(t.safeParse('9999-12-31T23:59:59.999Z').success).toBe(true);
    expect(t.safeParse('0000-01-01T00:00:00Z').error?.issues.map((i) => i.message)).toEqual(['must be a time between the years 1 and 9999']);
    expect(t.safeParse('0001-01-01T00:30:00+01:00').success).toBe(false); // year 0 in UTC
    expect(t.safeParse('9999-12-31T23:30:00-01:00').success).toBe(false); // year 10000 in UTC
    expect(t.safeParse('yesterday').error?.issues).toHaveLength(1);
  });
});

describe('decimal integers', () => {
  const limit = decimalInteger({ min: 1, max: 100 });
  it('reads plain decimal digits only', () => {
    expect(limit.parse('5')).toBe(5);
    expect(limit.parse('100')).toBe(100);
    for (const s of ['0x10', '1e2', ' 5', '5 ', '+5', '05', '5.0', '-1', '', '١']) {
      expect(limit.safeParse(s).error?.issues[0]?.message, JSON.stringify(s)).toMatch(/decimal integer/);
    }
    expect(limit.safeParse('0').error?.issues[0]?.message).toBe('must be at least 1');
    expect(limit.safeParse('9'.repeat(400)).error?.issues[0]?.message).toBe('must be at most 100');
  });
});

describe('findInputFault', () => {
  it('finds the first fault at any depth, member names included, without recursion', () => {
    let deep: unknown = 'a\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const fault = findInputFault(deep);
    expect(fault?.path).toHaveLength(100_000);
    expect(fault?.message).toMatch(/NUL/);
    expect(findInputFault({ ok: ['x', { 'k\u0000': 1 }] })).toEqual({ path: ['ok', 1, 'k\u0000'], message: expect.stringMatching(/^member name breaks the text rule/) });
    expect(findInputFault({ when: new Date('0000-06-01T00:00:00Z') })?.path).toEqual(['when']);
    expect(findInputFault({ a: ['fine', 1, true, null, new Date()] })).toBeNull();
  });
});
