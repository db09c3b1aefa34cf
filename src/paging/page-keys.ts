// The keys a list is ordered by (page-by-key.ts), and how a key is spelt inside a cursor: the
// key's text in base64url. The signature every cursor carries (cursor.ts) already keeps forged
// cursors out; decoding is strict all the same: bounded, and only the canonical spelling of a key
// is one we issued.

/** One kind of key: its text in a cursor, and back. */
export interface PageKey<K> {
  format(key: K): string;
  /** The key the text spells, or null; a text `format` would spell differently is refused after (decodeKey). */
  parse(text: string): K | null;
  /** The key order (ascending), for a short list paged in memory (pageInMemory). */
  compare(a: K, b: K): number;
}

/** No inner cursor is longer (a (time, id) key: 74 characters). */
export const MAX_CURSOR_LENGTH = 128;

const MAX_INT = 2 ** 31 - 1;
const order = <T extends number | string>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);

/** Positive int4 ids (`id:42`). */
export const intId: PageKey<number> = {
  format: (id) => `id:${id}`,
  parse(text) {
    const m = /^id:([1-9][0-9]{0,9})$/.exec(text);
    const id = m ? Number(m[1]) : Number.NaN;
    return id <= MAX_INT ? id : null;
  },
  compare: order,
};

/** String ids of one shape (`pattern` is anchored: `^…$`), e.g. `brd_` + a ULID. */
export const stringId = (pattern: RegExp): PageKey<string> => ({
  format: (id) => `id:${id}`,
  parse: (text) => (text.startsWith('id:') && pattern.test(text.slice(3)) ? text.slice(3) : null),
  compare: order,
});

/** A place in a list ordered by a time, then an id (ties): the delivery log's `sortAt`. */
export interface TimeAndId {
  at: Date;
  id: string;
}

const ISO_MS = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|(.+)$/;

/** (time, id) keys (`2026-01-02T03:04:05.678Z|att_…`); `idPattern` is anchored. */
export const timeAndId = (idPattern: RegExp): PageKey<TimeAndId> => ({
  format: ({ at, id }) => `${at.toISOString()}|${id}`,
  parse(text) {
    const m = ISO_MS.exec(text);
    if (!m || !idPattern.test(m[2])) return null;
    const at = new Date(m[1]);
    return Number.isNaN(at.getTime()) ? null : { at, id: m[2] };
  },
  compare: (a, b) => a.at.getTime() - b.at.getTime() || order(a.id, b.id),
});

export const encodeKey = <K>(kind: PageKey<K>, key: K): string => Buffer.from(kind.format(key), 'utf8').toString('base64url');

/** The key in a list's own cursor (the signature already checked), or null. */
export function decodeKey<K>(kind: PageKey<K>, cursor: string): K | null {
  if (cursor.length > MAX_CURSOR_LENGTH) return null;
  const key = kind.parse(Buffer.from(cursor, 'base64url').toString('latin1'));
  // base64url decoding is lenient (and 2026-02-30 is a date to Date): only the canonical spelling is ours.
  return key !== null && encodeKey(kind, key) === cursor ? key : null;
}
