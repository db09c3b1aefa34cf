// A sealed signing secret is bound to its row and column (AES-GCM additional data): moved to
// another subscription, or from `secret` to `previousSecret`, it no longer opens. Someone who can
// write the table but has no key cannot make one subscription sign with another's secret.
import { describe, expect, it } from 'vitest';
import { prisma } from '../../../src/db/db.ts';
import { openSecrets } from '../fixtures.ts';
import { webhookRepository } from '../../../src/webhooks/subscriptions/webhook.repository.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { createSubscription } from '../fixtures.ts';

const row = (id: string) => prisma.webhookSubscription.findUniqueOrThrow({ where: { id } });

describe('sealed secrets are bound to their row and column', () => {
  it('a ciphertext moved to another row or column does not open', { timeout: 120_000 }, async () => {
    const ws = await createTestWorkspace('Secret binding');
    const a = await createSubscription(ws, { url: 'https://93.184.216.34/a' });
    const b = await createSubscription(ws, { url: 'https://93.184.216.34/b' });
    expect(openSecrets(await row(a.id)).secret).toBe(a.secret);

    // A's sealed secret copied into B's row.
    await prisma.webhookSubscription.update({ where: { id: b.id }, data: { secret: (await row(a.id)).secret } });
    const moved = await row(b.id);
    expect(() => openSecrets(moved)).toThrow(/another/);

    // A's sealed secret copied into its own previousSecret column.
    const own = await row(a.id);
    const asPrevious = { ...own, previousSecret: own.secret, secretRotatedAt: new Date() };
    expect(() => openSecrets(asPrevious)).toThrow(/another/);

    // A rotation re-seals the old secret for its new column: both open, each where it is.
    await webhookRepository.rotateSecret(a.id, 'whsec_' + 'x'.repeat(43), new Date());
    expect(openSecrets(await row(a.id), new Date()).previousSecret).toBe(a.secret);
  });
});

