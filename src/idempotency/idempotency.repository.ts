import { prisma } from '../db/db.ts';
import { Prisma } from '../generated/prisma/client.ts';

export const idempotencyRepository = {
  /**
   * INSERT … ON CONFLICT DO NOTHING on the unique (apiKeyId, key): the returned record means this
   * call holds the key; null means another request holds it.
   */
  async claim(input: { apiKeyId: number; key: string; requestHash: string; expiresAt: Date }) {
    const [row] = await prisma.idempotencyRecord.createManyAndReturn({ data: [input], skipDuplicates: true, select: { id: true } });
    return row ?? null;
  },

  find(apiKeyId: number, key: string) {
    return prisma.idempotencyRecord.findUnique({ where: { apiKeyId_key: { apiKeyId, key } } });
  },

  complete(id: number, responseStatus: number, responseBody: unknown, at: Date) {
    return prisma.idempotencyRecord.updateMany({
      where: { id, state: 'in_progress' },
      data: {
        state: 'completed',
        responseStatus,
        responseBody: responseBody == null ? Prisma.DbNull : (responseBody as Prisma.InputJsonValue),
        completedAt: at,
      },
    });
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

  purgeExpired(now: Date) {
    return prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
  },
};
