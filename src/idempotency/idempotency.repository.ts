import { prisma } from '../db/db.ts';

// claim and complete run on every keyed request, so they are written as SQL: Prisma compiles a
// createManyAndReturn anew on each call (its query plans are not cached), and raw statements
// skip the query compiler altogether.
export const idempotencyRepository = {
  /**
   * INSERT … ON CONFLICT DO NOTHING on the unique (apiKeyId, key): the returned record means this
   * call holds the key; null means another request holds it.
   */
  async claim(input: { apiKeyId: number; key: string; requestHash: string; expiresAt: Date }) {
    const [row] = await prisma.$queryRaw<{ id: number }[]>`
      INSERT INTO "IdempotencyRecord" ("apiKeyId", "key", "requestHash", "expiresAt")
      VALUES (${input.apiKeyId}::int, ${input.key}, ${input.requestHash}, ${input.expiresAt.toISOString()}::timestamp(3))
      ON CONFLICT ("apiKeyId", "key") DO NOTHING
      RETURNING "id"`;
    return row ?? null;
  },

  find(apiKeyId: number, key: string) {
    return prisma.idempotencyRecord.findUnique({ where: { apiKeyId_key: { apiKeyId, key } } });
  },

  /** A null body (a 204) is stored as SQL NULL. */
  complete(id: number, responseStatus: number, responseBody: unknown, at: Date) {
    return prisma.$executeRaw`
      UPDATE "IdempotencyRecord"
      SET "state" = 'completed', "responseStatus" = ${responseStatus}::int,
          "responseBody" = ${responseBody == null ? null : JSON.stringify(responseBody)}::jsonb, "completedAt" = ${at.toISOString()}::timestamp(3)
      WHERE "id" = ${id}::int AND "state" = 'in_progress'`;
  },

  /** Drops a claim so that the key can be used again. */
  release(id: number) {
    return prisma.idempotencyRecord.deleteMany({ where: { id, state: 'in_progress' } });
  },

  /** Drops a record that no longer counts: expired, or abandoned in progress since `staleBefore`. */
  discardIfDead(id: number, now: Date, staleBefore: Date) {
    return prisma.idempotencyRecord.deleteMany({
      where: { id, OR: [{ expiresAt: { lte: now } }, { state: 'in_progress', createdAt: { lt: staleBefore } }] },
    });
  },
};
