// The DateTime scalar's output: Dates and canonical UTC strings as toISOString() writes them (the
// representations' timestamps, passed through as they are), other timestamps normalized to UTC.
import { describe, expect, it } from 'vitest';
import type { GraphQLScalarType } from 'graphql';
import { schema } from '../../src/api/schema.ts';

const dateTime = schema.getType('DateTime') as GraphQLScalarType;

describe('DateTime scalar', () => {
  it('writes a Date as ISO 8601 in UTC with milliseconds', () => {
    expect(dateTime.serialize(new Date(Date.UTC(2026, 10, 22, 5, 6, 7, 89)))).toBe('2026-11-22T05:06:07.089Z');
  });

  it('keeps a canonical UTC string as it is', () => {
    expect(dateTime.serialize('2026-11-22T05:06:07.089Z')).toBe('2026-11-22T05:06:07.089Z');
  });

  it('normalizes other timestamps to canonical UTC', () => {
    expect(dateTime.serialize('2026-11-22T07:06:07+02:00')).toBe('2026-11-22T05:06:07.000Z');
    expect(dateTime.serialize('2026-11-22T05:06:07Z')).toBe('2026-11-22T05:06:07.000Z');
    expect(dateTime.serialize(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00.000Z');
  });

  it('refuses what is not a time', () => {
    expect(() => dateTime.serialize('next tuesday')).toThrow();
  });
});
