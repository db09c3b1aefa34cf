// Connection arguments from callers. Pothos decodes a cursor before our resolvers run: one it
// cannot read raises its own PothosValidationError, and a tampered one can decode to a value of
// the wrong type (a string where an integer id belongs), which Prisma would reject as a server
// error. Both are the caller's mistake, so both answer 422.
import { PothosValidationError } from '@pothos/core';
import { AppError } from '../errors/errors.ts';

const MAX_INT = 2 ** 31 - 1;
const invalidPaging = (why: string) => new AppError('validation_failed', `The paging arguments are not valid: ${why.slice(0, 200)}`);

/** Prisma-connection resolvers pass their query through here before using its cursor. */
export function checkCursor<Q extends { cursor?: unknown }>(query: Q, idType: 'int' | 'string'): Q {
  if (query.cursor === undefined) return query;
  const cursor = query.cursor as Record<string, unknown>;
  const id = cursor.id;
  const valid =
    Object.keys(cursor).length === 1 &&
    (idType === 'int' ? Number.isInteger(id) && (id as number) >= 0 && (id as number) <= MAX_INT : typeof id === 'string' && id.length <= 200);
  if (!valid) throw invalidPaging('the cursor was not issued by this list');
  return query;
}

/** The error to report for a resolver's failure: Pothos's argument errors become 422. */
export const asCallerError = (err: unknown): unknown => (err instanceof PothosValidationError ? invalidPaging(err.message) : err);
