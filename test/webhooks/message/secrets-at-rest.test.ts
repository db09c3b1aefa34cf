// Webhook signing secrets are stored encrypted (AES-256-GCM, the key id beside each ciphertext),
// and the repositories hand out plain text: deliveries still sign and verify. The key of the
// embedded default is a 0600 file in DATA_DIR; `npm run cli -- secrets reencrypt` moves every
// row to a new key; a previous secret goes when its 24 hours are over.
import fs from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/admin/commands.ts';
import { config } from '../../../src/config.ts';
import { prisma } from '../../../src/db/db.ts';
import { purge } from '../../../src/retention/retention.service.ts';
import { deliveryRepository } from '../../../src/webhooks/delivery/delivery.repository.ts';
import { keyFile, openSecret, sealedWith, secretKeys } from '../../../src/webhooks/message/secret-box.ts';
import { activeSecrets, generateWebhookSecret, signatureHeaders } from '../../../src/webhooks/message/signing.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { createDelivery, createSubscription, openSecrets } from '../fixtures.ts';

const stored = (id: string) => prisma.webhookSubscription.findUniqueOrThrow({ where: { id }, select: { secret: true, previousSecret: true, secretRotatedAt: true } });

/** What the delivery activity signs with, and a check that a receiver verifies it. */
async function signsVerifiably(ws: Awaited<ReturnType<typeof createTestWorkspace>>, subscriptionId: string, secret: string) {
  const ref = await createDelivery(ws, subscriptionId);
  const context = (await deliveryRepository.findForAttempt(ref.deliveryId))!;
  expect(context.subscription.secret).toBe(secret);
  const body = JSON.stringify(context.event.payload);
  const headers = signatureHeaders({ id: ref.eventId, body, timestamp: new Date(), secrets: activeSecrets(context.subscription, new Date()) });
  expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
  return context;
}

describe('webhook signing secrets at rest', () => {
  // The first call loads the whole app: on a busy machine that alone can take most of the default 30 s.
  it('are stored sealed, never in plain text, and deliveries sign with them', { timeout: 120_000 }, async () => {
    const ws = await createTestWorkspace('Secrets');
    const key = (await ws.key({ name: 'Hooks' })).value;
    const created = await api('POST', '/webhooks', { key, body: { url: 'https://93.184.216.34/in', events: ['ticket.created'] } });
    expect(created.status, created.text).toBe(201);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_/);

    const row = await stored(created.body.id);
    expect(row.secret).toMatch(new RegExp(`^enc2\\.[A-Za-z0-9_-]+\\.${created.body.id}\\.secret\\.[A-Za-z0-9_-]{16}\\.[A-Za-z0-9_-]+$`));
    expect(row.secret).not.toContain(secret.slice(6));
    expect(sealedWith(row.secret)).toBe(secretKeys.current().id);
    // Nothing in the table holds the secret, in any column.
    const raw = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT * FROM "WebhookSubscription" WHERE id = $1`, created.body.id);
    expect(JSON.stringify(raw)).not.toContain(secret.slice(6, 30));
    await signsVerifiably(ws, created.body.id, secret);

    // Rotation: both stored sealed; the delivery gets both in plain text and signs with both.
    const rotated = await api('POST', `/webhooks/${created.body.id}/rotate-secret`, { key });
    expect(rotated.status, rotated.text).toBe(200);
    const after = await stored(created.body.id);
    expect([after.secret, after.previousSecret].every((v) => v!.startsWith('enc2.'))).toBe(true);
    // Sealed again for its new column (a ciphertext is bound to its row and column).
    expect(after.previousSecret).not.toBe(row.secret);
    expect(after.previousSecret).toContain(`.${created.body.id}.previousSecret.`);
    const context = await signsVerifiably(ws, created.body.id, rotated.body.secret);
    expect(context.subscription.previousSecret).toBe(secret);
  });

  it('keeps the key of the embedded default in DATA_DIR, owner-only', async () => {
    await createTestWorkspace();
    expect(config.webhooks.secretKeys).toBeUndefined();
    secretKeys.current();
    const file = keyFile(config.dataDir);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^k[0-9a-f]{8}:[A-Za-z0-9+/]{43}=\n/);
  });

  it('re-encrypts every row under a new key (npm run cli -- secrets reencrypt)', async () => {
    const ws = await createTestWorkspace('Reencrypt');
    const [plain, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const legacy = await createSubscription(ws, { url: 'https://93.184.216.34/', secret: plain, previousSecret: previous, secretRotatedAt: new Date() });
    const sealed = await stored(legacy.id);
    expect(openSecret(sealed.secret, { subscriptionId: legacy.id, column: 'secret' })).toBe(plain);
    expect(openSecret(sealed.previousSecret!, { subscriptionId: legacy.id, column: 'previousSecret' })).toBe(previous);
    const oldKey = sealedWith(sealed.secret)!;

    const outcome = await runCommand(['secrets', 'reencrypt']);
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    const newKey = secretKeys.current().id;
    expect(newKey).not.toBe(oldKey);
    expect(outcome.ok && outcome.output).toMatch(new RegExp(`^Re-encrypted \\d+ webhook subscriptions? under key ${newKey}\\.\\nRetired ${oldKey}: no process can seal a secret under it any more\\.\\nThe earlier keys are removed from the key file\\.$`));
    const moved = await stored(legacy.id);
    expect([sealedWith(moved.secret), sealedWith(moved.previousSecret!)]).toEqual([newKey, newKey]);
    expect([openSecret(moved.secret, { subscriptionId: legacy.id, column: 'secret' }), openSecret(moved.previousSecret!, { subscriptionId: legacy.id, column: 'previousSecret' })]).toEqual([plain, previous]);
    // Every row of the table, and only the new key is left.
    const keysInUse = new Set((await prisma.webhookSubscription.findMany({ select: { secret: true } })).map((r) => sealedWith(r.secret)));
    expect([...keysInUse]).toEqual([newKey]);
    expect(fs.readFileSync(keyFile(config.dataDir), 'utf8').trim().split('\n').map((l) => l.split(':')[0])).toEqual([newKey]);
    expect(openSecrets({ id: legacy.id, ...(await stored(legacy.id)) }).secret).toBe(plain);
  });

  it('clears the previous secret once its 24 hours are over: not handed out, and gone from the row after retention', async () => {
    const ws = await createTestWorkspace('Expired secret');
    const key = (await ws.key({ name: 'Hooks' })).value;
    const created = await api('POST', '/webhooks', { key, body: { url: 'https://93.184.216.34/in', events: ['ticket.created'] } });
    await api('POST', `/webhooks/${created.body.id}/rotate-secret`, { key });
    const rotatedAt = (await stored(created.body.id)).secretRotatedAt!;
    const dayLater = new Date(rotatedAt.getTime() + 24 * 60 * 60 * 1000);

    // Within the 24 hours retention keeps it.
    await purge('previousSecrets', { now: new Date(dayLater.getTime() - 1000), policy: config.retention });
    expect((await stored(created.body.id)).previousSecret).not.toBeNull();

    await prisma.webhookSubscription.update({ where: { id: created.body.id }, data: { secretRotatedAt: new Date(Date.now() - 25 * 60 * 60 * 1000) } });
    // Not handed out: deliveries sign with the current secret alone.
    expect(openSecrets({ id: created.body.id, ...(await stored(created.body.id)) }).previousSecret).toBeNull();
    expect(await purge('previousSecrets', { now: new Date(), policy: config.retention })).toBeGreaterThanOrEqual(1);
    expect((await stored(created.body.id)).previousSecret).toBeNull();
  });
});
