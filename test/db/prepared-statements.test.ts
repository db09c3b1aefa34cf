// Statement names for pg's prepared statements (src/db/database.ts): one stable name per SQL
// text, and no more names than the bound, after which texts run unprepared.
import { describe, expect, it } from 'vitest';
import { createStatementNamer } from '../../src/db/database.ts';
import { prisma } from '../../src/db/db.ts';

describe('prepared statement names', () => {
  it('gives a text the same name every time and other texts other names', () => {
    const name = createStatementNamer();
    const a = name({ sql: 'SELECT 1' });
    expect(a).toMatch(/^p_[A-Za-z0-9_-]{24}$/);
    expect(name({ sql: 'SELECT 1' })).toBe(a);
    expect(name({ sql: 'SELECT 2' })).not.toBe(a);
  });

  it('names at most `max` texts; later texts run unnamed, the named ones keep their names', () => {
    const name = createStatementNamer(2);
    const first = name({ sql: 'SELECT 1' });
    name({ sql: 'SELECT 2' });
    expect(name({ sql: 'SELECT 3' })).toBeUndefined();
    expect(name({ sql: 'SELECT 1' })).toBe(first);
  });

  it('repeated queries through Prisma keep answering (prepared once per connection, then reused)', async () => {
    for (let i = 0; i < 30; i++) {
      const [row] = await prisma.$queryRaw<{ n: number }[]>`SELECT ${i}::int + 1 AS n`;
      expect(row.n).toBe(i + 1);
    }
  });
});
