// Signing secrets as stored (workflows/delivery/secret-box.ts): sealing the plain-text rows of earlier
// releases at start-up, re-sealing every row under the current key (`npm run cli -- secrets
// reencrypt`), and clearing previous secrets once their 24 hours of overlap are over.
import { prisma } from '../../db/db.ts';
import { isLegacySealed, isSealed, openLegacySecret, openSecret, sealedWith, sealSecret, secretKeys, type KeyRing, type SecretPlace } from '../../../workflows/delivery/secret-box.ts';
import { ROTATION_OVERLAP_MS } from '../../../workflows/delivery/signing.ts';

const PAGE = 500;

interface StoredSecrets {
  id: string;
  secret: string;
  previousSecret: string | null;
}

/** Each row once, in id order, in pages. */
async function* allRows(): AsyncGenerator<StoredSecrets> {
  for (let after = ''; ; ) {
    const rows = await prisma.webhookSubscription.findMany({
      where: { id: { gt: after } },
      select: { id: true, secret: true, previousSecret: true },
      orderBy: { id: 'asc' },
      take: PAGE,
    });
    yield* rows;
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.id;
  }
}

/** The plain text of a stored value: plain already (an earlier release), the earlier sealed format, or sealed for its place. */
const plainOf = (v: string, place: SecretPlace) => (!isSealed(v) ? v : isLegacySealed(v) ? openLegacySecret(v) : openSecret(v, place));

/** Re-seals the row's values that `stale` says so; only if unchanged meanwhile (a rotation wins). True when written. */
async function reseal(row: StoredSecrets, stale: (stored: string) => boolean): Promise<boolean> {
  const again = (v: string, column: SecretPlace['column']) => {
    const place = { subscriptionId: row.id, column };
    return stale(v) ? sealSecret(plainOf(v, place), place) : v;
  };
  const secret = again(row.secret, 'secret');
  const previousSecret = row.previousSecret === null ? null : again(row.previousSecret, 'previousSecret');
  if (secret === row.secret && previousSecret === row.previousSecret) return false;
  const { count } = await prisma.webhookSubscription.updateMany({
    where: { id: row.id, secret: row.secret, previousSecret: row.previousSecret },
    data: { secret, previousSecret },
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
        FROM "WebhookSubscription", unnest(ARRAY["secret", "previousSecret"]) AS v
       WHERE v ~ '^enc[12]\.'`;
    if (!rows.length) return;
    const have = new Set((ring.existing() ?? []).map((k) => k.id));
    const missing = rows.map((r) => r.keyId).filter((id) => !have.has(id));
    if (!missing.length) return;
    throw new Error(
      `Webhook signing secrets in the database are encrypted with key${missing.length === 1 ? '' : 's'} ${missing.join(', ')}, which ${ring.source} ` +
        `${ring.existing() ? 'does not hold' : 'does not exist to hold'}: give every process the keys it had (restore the key file from the backup of DATA_DIR, ` +
        'or list them in WEBHOOK_SECRET_KEYS; docs/operators/admin-cli.md, "Webhook secrets"). Nothing was created or changed.',
    );
  },

  /**
   * Start-up: seals what an earlier release stored in plain text, or sealed without binding it to
   * its place (enc1). The number of rows sealed.
   */
  async sealPlainText(): Promise<number> {
    let sealed = 0;
    for await (const row of allRows()) if (await reseal(row, (v) => !isSealed(v) || isLegacySealed(v))) sealed++;
    return sealed;
  },

  /** Every row under the current key; the number of rows re-sealed, and the key ids still in use after. */
  async reencryptAll(): Promise<{ reencrypted: number; keyId: string; stillUsed: string[] }> {
    const current = secretKeys.current().id;
    let reencrypted = 0;
    const used = new Set<string>();
    for await (const row of allRows()) {
      if (await reseal(row, (v) => sealedWith(v) !== current)) reencrypted++;
    }
    // Read again: a row changed meanwhile by a rotation is sealed under the current key anyway.
    for await (const row of allRows()) for (const v of [row.secret, row.previousSecret]) if (v) used.add(sealedWith(v) ?? 'plain text');
    return { reencrypted, keyId: current, stillUsed: [...used].filter((id) => id !== current) };
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

/** The row's secrets in plain text, the previous one only while it still signs (else null). */
export function openSecrets<T extends { id: string; secret: string; previousSecret: string | null; secretRotatedAt: Date | null }>(row: T, now = new Date()): T {
  const previousValid = row.previousSecret !== null && row.secretRotatedAt !== null && now.getTime() - row.secretRotatedAt.getTime() < ROTATION_OVERLAP_MS;
  return {
    ...row,
    secret: openSecret(row.secret, { subscriptionId: row.id, column: 'secret' }),
    previousSecret: previousValid ? openSecret(row.previousSecret!, { subscriptionId: row.id, column: 'previousSecret' }) : null,
  };
}
