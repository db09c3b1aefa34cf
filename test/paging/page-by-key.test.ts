// The one pager (src/paging/page-by-key.ts) over in-memory lists: strict cursors for each kind
// of key, paging forward and backward in both orders, the argument rules and the byte budget.
import { describe, expect, it } from 'vitest';
import { pageByKey, pageInMemory, type ConnectionArgs, type KeyedList } from '../../src/paging/page-by-key.ts';
import { decodeKey, encodeKey, intId, MAX_CURSOR_LENGTH, stringId, timeAndId, type PageKey, type TimeAndId } from '../../src/paging/page-keys.ts';
import { PAGE_BYTE_BUDGET } from '../../src/paging/page-budget.ts';
import { AppError } from '../../src/errors/errors.ts';

const b64 = (text: string) => Buffer.from(text, 'latin1').toString('base64url');
const boardIds = stringId(/^brd_[0-9A-Z]{26}$/);
const logKeys = timeAndId(/^(?:att|dlv)_[0-9A-Z]{26}$/);
const ULID = '01JABCDEFGHJKMNPQRSTVWXYZ0';

describe('cursor keys', () => {
  it('int ids: canonical decimal of a positive int4 only', () => {
    expect(decodeKey(intId, encodeKey(intId, 42))).toBe(42);
    expect(decodeKey(intId, encodeKey(intId, 2 ** 31 - 1))).toBe(2 ** 31 - 1);
    for (const text of ['id:0', 'id:042', 'id:-1', 'id:2147483648', 'id:1.5', 'id: 1', 'id:1\n', 'ID:1', 'id:', '42', 'id:12345678901']) {
      expect(decodeKey(intId, b64(text)), text).toBeNull();
    }
  });

  it('refuses a cursor that decodes to a key but is not its canonical spelling', () => {
    const cursor = encodeKey(intId, 42); // 'aWQ6NDI': the last character carries two unused bits
    expect(cursor).toBe('aWQ6NDI');
    expect(Buffer.from('aWQ6NDJ', 'base64url').toString()).toBe('id:42');
    expect(decodeKey(intId, 'aWQ6NDJ')).toBeNull();
    expect(decodeKey(intId, `${cursor}=`)).toBeNull();
    expect(decodeKey(intId, ` ${cursor}`)).toBeNull();
  });

  it('string ids: only the list’s id shape', () => {
    const id = `brd_${ULID}`;
    expect(decodeKey(boardIds, encodeKey(boardIds, id))).toBe(id);
    for (const text of [`id:brd_${ULID.toLowerCase()}`, `id:wh_${ULID}`, `id:brd_${ULID}x`, `id:brd_${ULID}\n`, `brd_${ULID}`, 'id:', `id:id:brd_${ULID}`]) {
      expect(decodeKey(boardIds, b64(text)), text).toBeNull();
    }
  });

  it('(time, id) keys: a real instant to the millisecond and an id of the list’s shape', () => {
    const key: TimeAndId = { at: new Date('2026-11-26T14:00:00.123Z'), id: `att_${ULID}` };
    expect(decodeKey(logKeys, encodeKey(logKeys, key))).toEqual(key);
    for (const text of [
      `2026-02-30T00:00:00.000Z|att_${ULID}`, // not a day: Date would roll it over
      `2026-11-26T14:00:00Z|att_${ULID}`,
      `2026-11-26T14:00:00.123+00:00|att_${ULID}`,
      `2026-11-26T14:00:00.123Z|wh_${ULID}`,
      `2026-11-26T14:00:00.123Z att_${ULID}`,
      `2026-11-26T14:00:00.123Z|att_${ULID}|x`,
    ]) {
      expect(decodeKey(logKeys, b64(text)), text).toBeNull();
    }
  });

  it('refuses a cursor longer than any key spells before decoding it', () => {
    const long = b64(`id:brd_${'A'.repeat(200)}`);
    expect(long.length).toBeGreaterThan(MAX_CURSOR_LENGTH);
    expect(decodeKey(stringId(/^brd_[A-Z]+$/), long)).toBeNull();
  });
});

interface Row {
  id: number;
  bytes: number;
}
const rows: Row[] = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, bytes: 10 }));

function list<K, T>(key: PageKey<K>, all: T[], keyOf: (r: T) => K, newestFirst: boolean): KeyedList<T, K> {
  return { key, keyOf, newestFirst, load: async (page) => pageInMemory(all, page, key, keyOf) };
}

type Page<T> = Awaited<ReturnType<typeof pageByKey<T, unknown>>>;
const nodes = <T>(c: Page<T>) => c.edges.map((e) => e.node);

/** Every row, page by page, following endCursor (forward) or startCursor (backward). */
async function walk<T, K>(l: KeyedList<T, K>, size: number, backward = false): Promise<T[]> {
  const seen: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const args: ConnectionArgs = backward ? { last: size, before: cursor } : { first: size, after: cursor };
    const c = await pageByKey(args, l);
    if (backward) seen.unshift(...nodes(c));
    else seen.push(...nodes(c));
    if (!(backward ? c.pageInfo.hasPreviousPage : c.pageInfo.hasNextPage)) return seen;
    cursor = (backward ? c.pageInfo.startCursor : c.pageInfo.endCursor) ?? undefined;
  }
  throw new Error('paging did not end');
}

describe('pageByKey', () => {
  it('pages forward and backward, oldest or newest first, each row once', async () => {
    const ids = (r: Row[]) => r.map((x) => x.id);
    const oldest = list(intId, rows, (r) => r.id, false);
    const newest = list(intId, rows, (r) => r.id, true);
    expect(ids(await walk(oldest, 3))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(ids(await walk(oldest, 3, true))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(ids(await walk(newest, 2))).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(ids(await walk(newest, 2, true))).toEqual([7, 6, 5, 4, 3, 2, 1]);

    const first = await pageByKey({ first: 3 }, newest);
    expect(ids(nodes(first))).toEqual([7, 6, 5]);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false, startCursor: encodeKey(intId, 7), endCursor: encodeKey(intId, 5) });
    // A cursor stays valid when its row is gone: the keyset goes on from its place.
    const afterGone = await pageByKey({ first: 2, after: first.pageInfo.endCursor }, list(intId, rows.filter((r) => r.id !== 5), (r) => r.id, true));
    expect(ids(nodes(afterGone))).toEqual([4, 3]);
  });

  it('defaults to 50 rows a page', async () => {
    const many = Array.from({ length: 120 }, (_, i) => ({ id: i + 1, bytes: 0 }));
    const c = await pageByKey({}, list(intId, many, (r) => r.id, false));
    expect(c.edges).toHaveLength(50);
    expect(c.pageInfo.hasNextPage).toBe(true);
  });

  it('pages string and (time, id) keys the same way', async () => {
    const boards = ['A', 'B', 'C', 'D', 'E'].map((c) => ({ id: `brd_${ULID.slice(0, 25)}${c}` }));
    const bl = list(boardIds, boards, (b) => b.id, false);
    expect(await walk(bl, 2)).toEqual(boards);
    expect(await walk(bl, 2, true)).toEqual(boards);

    // Two entries at the same instant are ordered by id.
    const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, s));
    const log = [
      { sortAt: at(3), id: `att_${ULID.slice(0, 25)}A` },
      { sortAt: at(2), id: `dlv_${ULID.slice(0, 25)}B` },
      { sortAt: at(2), id: `att_${ULID.slice(0, 25)}C` },
      { sortAt: at(1), id: `att_${ULID.slice(0, 25)}D` },
    ];
    const ll = list(logKeys, log, (r) => ({ at: r.sortAt, id: r.id }), true);
    expect(await walk(ll, 1)).toEqual(log);
    expect(await walk(ll, 3)).toEqual(log);
  });

  it('refuses out-of-range sizes, first with last, and cursors of another kind of key, as validation_failed', async () => {
    const l = list(intId, rows, (r) => r.id, false);
    const refused = async (args: ConnectionArgs) => {
      const err = await pageByKey(args, l).then(() => null, (e: unknown) => e);
      expect(err, JSON.stringify(args)).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('validation_failed');
      return (err as AppError).errors?.map((e) => e.path);
    };
    expect(await refused({ first: 0 })).toEqual(['/first']);
    expect(await refused({ first: 101 })).toEqual(['/first']);
    expect(await refused({ last: -1 })).toEqual(['/last']);
    expect(await refused({ first: 1, last: 1 })).toEqual(['/last']);
    expect(await refused({ after: encodeKey(boardIds, `brd_${ULID}`) })).toEqual(['/after']);
    expect(await refused({ before: 'x'.repeat(MAX_CURSOR_LENGTH + 1) })).toEqual(['/before']);
    expect((await pageByKey({ first: 100 }, l)).edges).toHaveLength(7);
  });

  it('cuts a page at the byte budget, and serves a row larger than the budget alone', async () => {
    const big = [
      { id: 1, bytes: PAGE_BYTE_BUDGET / 2 },
      { id: 2, bytes: PAGE_BYTE_BUDGET / 2 },
      { id: 3, bytes: PAGE_BYTE_BUDGET * 2 },
      { id: 4, bytes: 10 },
    ];
    const loaded: number[][] = [];
    const l: KeyedList<Row, number> = {
      ...list(intId, big, (r) => r.id, false),
      load: async (page) => {
        loaded.push(page.where.id?.in ?? []);
        return pageInMemory(big, page, intId, (r) => r.id).filter((r) => page.where.id?.in?.includes(r.id));
      },
      budget: { hold: undefined, sizes: async (page) => pageInMemory(big, page, intId, (r) => r.id) },
    };
    const first = await pageByKey({ first: 10 }, l);
    // The second half-budget row plus its overhead passes the budget: the page stops after one.
    expect(nodes(first).map((r) => r.id)).toEqual([1]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await pageByKey({ first: 10, after: first.pageInfo.endCursor }, l);
    expect(nodes(second).map((r) => r.id)).toEqual([2]);
    const third = await pageByKey({ first: 10, after: second.pageInfo.endCursor }, l);
    expect(nodes(third).map((r) => r.id)).toEqual([3]);
    expect(third.pageInfo.hasNextPage).toBe(true);
    const last = await pageByKey({ first: 10, after: third.pageInfo.endCursor }, l);
    expect(nodes(last).map((r) => r.id)).toEqual([4]);
    expect(last.pageInfo.hasNextPage).toBe(false);
    // Only the rows that fit were loaded.
    expect(loaded).toEqual([[1], [2], [3], [4]]);
  });
});
