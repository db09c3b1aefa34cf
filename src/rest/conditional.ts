// Conditional requests (RFC 9110 §13) for versioned records: answers carry `ETag: "<version>"`,
// and a change sent with `If-Match` runs only while the record is still at one of the named
// versions (strong comparison: a weak tag never matches). The service checks the versions on
// the locked row; here the header is only read.
import { AppError } from '../errors/errors.ts';

/** Characters an If-Match header may have, and tags it may list: bounds, so a hostile header costs nothing. */
export const MAX_IF_MATCH_CHARS = 1024;
export const MAX_IF_MATCH_TAGS = 20;

const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7E]*)"$/;
const VERSION = /^[1-9][0-9]{0,9}$/;

/** What the document declares If-Match to be: `*`, or 1 to 20 entity tags (no comma inside one). */
export const IF_MATCH_PATTERN = `^ *(\\*|(W/)?"[\\x21\\x23-\\x2B\\x2D-\\x7E]*"( *, *(W/)?"[\\x21\\x23-\\x2B\\x2D-\\x7E]*"){0,${MAX_IF_MATCH_TAGS - 1}}) *$`;

export const etagOf = (version: number) => `"${version}"`;

const malformed = () => new AppError('invalid_header', 'If-Match must be `*` or a list of entity tags such as `"3"`');

/**
 * The versions an `If-Match` header accepts: null when there is no condition (no header, or `*`:
 * the record must only exist), else the strong tags that name a version (possibly none, which
 * no record matches).
 */
export function ifMatchVersions(headers: Headers): number[] | null {
  const value = headers.get('if-match');
  if (value === null) return null;
  if (value.length > MAX_IF_MATCH_CHARS) throw malformed();
  if (value.trim() === '*') return null;
  const tags = value.split(',').map((t) => t.trim()).filter(Boolean);
  if (!tags.length || tags.length > MAX_IF_MATCH_TAGS) throw malformed();
  const versions: number[] = [];
  for (const tag of tags) {
    const m = ENTITY_TAG.exec(tag);
    if (!m) throw malformed();
    if (!m[1] && VERSION.test(m[2]) && Number(m[2]) <= 2 ** 31 - 1) versions.push(Number(m[2]));
  }
  return versions;
}
