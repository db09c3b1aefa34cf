import { getRandomValues } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// ulid's default source calls crypto.getRandomValues for each of the 16 random characters of an
// id; the same bytes (one per character, uniform over its 32 values) come from a buffered pool.
const pool = new Uint8Array(4096);
let used = pool.length;
function randomFraction(): number {
  if (used === pool.length) {
    getRandomValues(pool);
    used = 0;
  }
  return pool[used++] / 256;
}

const next = monotonicFactory(randomFraction);

/** Opaque, time-sortable ids with a readable prefix (`wh_`, `evt_`, `dlv_`, `att_`, `brd_` …). */
export const newId = (prefix: string) => `${prefix}_${next()}`;
