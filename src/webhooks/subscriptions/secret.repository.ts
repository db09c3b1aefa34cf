// Signing secrets (and broker destinations' credentials) as stored (src/webhooks/message/secret-box.ts): the keys a start needs, re-sealing
// every row under the current key (`npm run cli -- secrets reencrypt`), and clearing previous
// secrets once their 24 hours of overlap are over.
//
// A re-encryption first retires the other keys (RetiredSecretKey): from its commit on, a trigger
// refuses any value sealed under one of them (a process still sealing under an older key, or one
// that chose its key just before), and every seal committed before it is seen by the rows read
// after it (migration secret_key_retirement: the seals' shared advisory lock, the retirement's
// exclusive one). So nothing is left under a key once the re-encryption has read every row, and
// dropping the key then loses nothing.
import { prisma } from '../../db/db.ts';
import { openSecret, sealedWith, sealSecret, secretKeys, type KeyRing, type SecretPlace } from '../message/secret-box.ts';
import { interleave } from '../delivery/interleave.ts';
import { ROTATION_OVERLAP_MS } from '../message/signing.ts';

/** The advisory lock of the seals (shared, in the trigger) and of a retirement (exclusive); the migration names the same number. */
const SEAL_FENCE = 4702158301;

/** The retired key a write was refused for (the trigger's error), if that is why it failed. */
export function retiredKeyOf(err: unknown): string | undefined {
  return /sealed under the retired key ([A-Za-z0-9_-]+)/.exec(err instanceof Error ? err.message : '')?.[1];
}

const PAGE = 500;

interface StoredSecrets {
  id: string;
  secret: string;
  previousSecret: string | null;
  destinationCredentials: string | null;
}

/** Each row once, in id order, in pages. */
async function* allRows(): AsyncGenerator<StoredSecrets> {
  for (let after = ''; ; ) {
    const rows = await prisma.webhookSubscription.findMany({
      where: { id: { gt: after } },
      select: { id: true, secret: true, previousSecret: true, destinationCredentials: true },
      orderBy: { id: 'asc' },
      take: PAGE,
    });
    yield* rows;
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1].id;
  }
}

/** Re-seals the row's values that `stale` says so; only if unchanged meanwhile (a rotation wins). True when written. */
async function reseal(row: StoredSecrets, stale: (stored: string) => boolean): Promise<boolean> {
  const again = (v: string, column: SecretPlace['column']) => {
    const place = { subscriptionId: row.id, column };
    return stale(v) ? sealSecret(openSecret(v, place), place) : v;
  };
  const secret = again(row.secret, 'secret');
  const previousSecret = row.previousSecret === null ? null : again(row.previousSecret, 'previousSecret');
  const destinationCredentials = row.destinationCredentials === null ? null : again(row.destinationCredentials, 'destinationCredentials');
  if (secret === row.secret && previousSecret === row.previousSecret && destinationCredentials === row.destinationCredentials) return false;
  const { count } = await prisma.webhookSubscription.updateMany({
    where: { id: row.id, secret: row.secret, previousSecret: row.previousSecret, destinationCredentials: row.destinationCredentials },
    data: { secret, previousSecret, destinationCredentials },
  });
  return count === 1;
}

export const secretRepository = {
  /**
   * Start-up: refuses (a clear message, nothing written) when stored secrets name a key the service
   * does not have: a key file lost or not copied, a WEBHOOK_SECRET_KEYS without a key still in use.
   * Made anew, a key file would leave every stored secret unreadable.
   */
  async assertKeysPresent(ring: KeyRing = secretKeys): Promise<void> {
    const rows = await prisma.$queryRaw<{ keyId: string }[]>`
      SELECT DISTINCT split_part(v, '.', 2) AS "keyId"
        FROM "WebhookSubscription", unnest(ARRAY["secret", "previousSecret", "destinationCredentials"]) AS v
       WHERE v ~ '^enc2\.'`;
    const held = ring.existing();
    const have = new Set((held ?? []).map((k) => k.id));
    const missing = rows.map((r) => r.keyId).filter((id) => !have.has(id));
    if (missing.length) {
      throw new Error(
        `Webhook signing secrets in the database are encrypted with key${missing.length === 1 ? '' : 's'} ${missing.join(', ')}, which ${ring.source} ` +
          `${held ? 'does not hold' : 'does not exist to hold'}: give every process the keys it had (restore the key file from the backup of DATA_DIR, ` +
          'or list them in WEBHOOK_SECRET_KEYS; docs/operators/admin-cli.md, "Webhook secrets"). Nothing was created or changed.',
      );
    }
    const sealing = held?.[0]?.id;
    if (sealing && (await secretRepository.retiredKeys()).has(sealing)) {
      throw new Error(
        `This process would seal webhook signing secrets under key ${sealing}, the first of ${ring.source}, which \`secrets reencrypt\` retired: ` +
          'put the key it re-encrypted under first (docs/operators/admin-cli.md, "Webhook secrets"). Nothing was created or changed.',
      );
    }
  },

  async retiredKeys(): Promise<Set<string>> {
    return new Set((await prisma.retiredSecretKey.findMany({ select: { keyId: true } })).map((k) => k.keyId));
  },

  /**
   * From its commit on, nothing is sealed under `keyIds` (the trigger refuses it); the seals under
   * way commit first. `current` seals again, should it have been retired before.
   */
  async retireKeys(keyIds: string[], current: string): Promise<void> {
    await prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 AS "locked" FROM pg_advisory_xact_lock(${SEAL_FENCE}::bigint)`;
      if (keyIds.length) await tx.$executeRaw`INSERT INTO "RetiredSecretKey" ("keyId") SELECT unnest(${keyIds}::text[]) ON CONFLICT DO NOTHING`;
      await tx.retiredSecretKey.deleteMany({ where: { keyId: current } });
    });
  },

  /**
   * Every row under the current key, the ring's other keys retired first (see the top of this
   * file); the number of rows re-sealed, the keys retired, and the key ids still in use after
   * (none, unless a row names a key this process does not hold).
   */
  async reencryptAll(): Promise<{ reencrypted: number; keyId: string; retired: string[]; stillUsed: string[] }> {
    const current = secretKeys.current().id;
    const retired = secretKeys.all().map((k) => k.id).filter((id) => id !== current);
    await secretRepository.retireKeys(retired, current);
    let reencrypted = 0;
    const used = new Set<string>();
    for await (const row of allRows()) {
      if (await reseal(row, (v) => sealedWith(v) !== current)) reencrypted++;
    }
    // Read again: a row changed meanwhile by a rotation is sealed under a key not retired.
    for await (const row of allRows()) for (const v of [row.secret, row.previousSecret, row.destinationCredentials]) if (v) used.add(sealedWith(v) ?? 'plain text');
    await interleave('secrets:resealed', current);
    return { reencrypted, keyId: current, retired, stillUsed: [...used].filter((id) => id !== current) };
  },

  /** Previous secrets whose 24 hours are over (retention; reads ignore them already). Rows cleared. */
  clearExpiredPrevious(now: Date, limit: number): Promise<number> {
    const before = new Date(now.getTime() - ROTATION_OVERLAP_MS).toISOString();
    return prisma.$executeRaw`
      UPDATE "WebhookSubscription" SET "previousSecret" = NULL
       WHERE "id" IN (
         SELECT "id" FROM "WebhookSubscription"
          WHERE "previousSecret" IS NOT NULL AND ("secretRotatedAt" IS NULL OR "secretRotatedAt" <= ${before}::timestamp(3))
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)`;
  },
};
