// Paging cursors. Every cursor a list gives out is signed (HMAC-SHA-256 with a secret the service
// generates once and keeps in its database, so every instance shares it) and bound to that list.
// A cursor that was forged, altered, or issued by another list is refused as the caller's
// mistake (422) before anything decodes it (page-keys.ts decodes what passes).
import crypto from 'node:crypto';
import { PothosValidationError } from '@pothos/core';
import { AppError } from '../errors/errors.ts';
import { serviceSecretRepository } from './service-secret.repository.ts';
import { onResetForTests } from '../reset-for-tests.ts';

/** Characters of the base64url tag: 132 bits of the HMAC. */
const TAG_LENGTH = 22;
/** The shape of every cursor callers see (the OpenAPI document states it): the list's own cursor, a dot, the tag. */
export const SIGNED_CURSOR = new RegExp(`^([A-Za-z0-9_-]*)\\.([A-Za-z0-9_-]{${TAG_LENGTH}})$`);

let key: Buffer | null = null;
let loading: Promise<Buffer> | null = null;
// A test file's fresh database (src/reset-for-tests.ts) has no key yet: the next cursor makes or reads its own.
onResetForTests(() => {
  key = null;
  loading = null;
});

/** The signing key: at once when loaded, else a promise (one database read per process). */
export function cursorKey(): Buffer | Promise<Buffer> {
  if (key) return key;
  loading ??= serviceSecretRepository.getOrCreate('cursor-hmac').then(
    (k) => (key = k),
    (err: unknown) => {
      loading = null;
      throw err;
    },
  );
  return loading;
}

const tagOf = (k: Buffer, list: string, inner: string) => crypto.createHmac('sha256', k).update(`${list}\n${inner}`).digest('base64url').slice(0, TAG_LENGTH);

/** The cursor callers see: the list's own cursor (base64url, so it is URL-safe) and its tag. */
export function signCursor(k: Buffer, list: string, inner: string): string {
  return `${Buffer.from(inner, 'utf8').toString('base64url')}.${tagOf(k, list, inner)}`;
}

/** The list's own cursor inside a signed one, or null when `list` did not issue it. */
export function openCursor(k: Buffer, list: string, cursor: string): string | null {
  const m = SIGNED_CURSOR.exec(cursor);
  if (!m) return null;
  const inner = Buffer.from(m[1], 'base64url').toString('utf8');
  const expected = Buffer.from(tagOf(k, list, inner));
  if (!crypto.timingSafeEqual(Buffer.from(m[2]), expected)) return null;
  return inner;
}

export const invalidCursor = (path: string) =>
  new AppError('validation_failed', 'The paging arguments are not valid', { errors: [{ path, message: 'is not a cursor of this list' }] });

/**
 * The error to report for a resolver's failure: Pothos's argument errors become 422. Only its
 * messages about the caller's arguments (`Argument "first" must be …`) are passed on; others
 * would describe its internals.
 */
export const asCallerError = (err: unknown): unknown =>
  err instanceof PothosValidationError
    ? new AppError('validation_failed', `The paging arguments are not valid${/^Argument "\w+"/.test(err.message) ? `: ${err.message.slice(0, 200)}` : ''}`)
    : err;
