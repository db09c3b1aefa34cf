// The SQL end of a keyset page (page-by-key.ts): the id range, order and size of a page, and the
// sizing statement's rows, read on the driver directly.
import { db } from '../db/db.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { KeysetPage, SizedRow } from './page-by-key.ts';

/**
 * The end of a page-sizing statement (page-by-key.ts `PageBudget`): the page's id range, order and
 * size (one extra row, which tells whether more follow).
 */
export function keysetSql(page: KeysetPage): Prisma.Sql {
  const { lt, gt } = page.where.id ?? {};
  let range = Prisma.empty;
  if (lt !== undefined) range = Prisma.sql`${range} AND id < ${lt}`;
  if (gt !== undefined) range = Prisma.sql`${range} AND id > ${gt}`;
  return Prisma.sql`${range} ORDER BY id ${Prisma.raw(page.orderBy.id === 'desc' ? 'DESC' : 'ASC')} LIMIT ${page.take}`;
}

/** Runs a sizing statement (`id`, `bytes`) on the driver directly (db.ts `read`: a third of Prisma's CPU for it). */
export async function sizedRows(statement: Prisma.Sql): Promise<SizedRow[]> {
  const rows = await db.read<{ id: number; bytes: number | string | null }>(statement.text, statement.values);
  return rows.map((r) => ({ id: r.id, bytes: Number(r.bytes ?? 0) }));
}
