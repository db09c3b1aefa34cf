import crypto from 'node:crypto';
import { prisma } from '../db/db.ts';

export const serviceSecretRepository = {
  /** The named secret, made (32 random bytes) by whichever instance asks first; the others read that one. */
  async getOrCreate(name: string): Promise<Buffer> {
    await prisma.serviceSecret.createMany({ data: [{ name, value: crypto.randomBytes(32) }], skipDuplicates: true });
    const row = await prisma.serviceSecret.findUniqueOrThrow({ where: { name } });
    return Buffer.from(row.value);
  },
};
