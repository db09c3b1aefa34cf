// Changing the keys of webhook signing secrets under a running service (docs/operators/admin-cli.md,
// "Webhook secrets"): a process that lacks a row's key still lists and reads every subscription
// (never a 500) and says which key it needs; one whose first key was retired refuses to start, or
// to seal, saying so; and no secret can be left under a key `secrets reencrypt` drops, even one
// sealed between its last read and the drop (the retirement fence, migration secret_key_retirement).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/admin/commands.ts';
import { config } from '../../../src/config.ts';
import { prisma } from '../../../src/db/db.ts';
import { newId } from '../../../src/ids.ts';
import { secretRepository } from '../../../src/webhooks/subscriptions/secret.repository.ts';
import { deliveryRepository } from '../../../src/webhooks/delivery/delivery.repository.ts';
import { setInterleaveHook } from '../../../src/webhooks/delivery/interleave.ts';
import { KeyRing, formatSecretKeys, keyFile, sealSecret, sealedWith, secretKeys, type SecretPlace } from '../../../src/webhooks/message/secret-box.ts';
import { api, createTestWorkspace } from '../../support/fixtures.ts';
import { createDelivery, openSecrets } from '../fixtures.ts';

type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

afterEach(() => setInterleaveHook(null));

const newKey = (id: string) => ({ id, key: crypto.randomBytes(32) });

/** A subscription row whose secret is sealed under `key`, as another process would write it. */
function insertSealedUnder(ws: Workspace, key: { id: string; key: Buffer }) {
  const id = newId('wh');
  const place: SecretPlace = { subscriptionId: id, column: 'secret' };
  return prisma.webhookSubscription.create({
    data: { id, workspaceId: ws.workspace.id, createdById: ws.admin.id, url: 'https://93.184.216.34/in', events: ['ticket.created'], secret: sealSecret('whsec_' + 'z'.repeat(43), place, key) },
  });
}

describe('a process that lacks the key of a row (a key added first elsewhere before it was added here)', () => {
  it('lists, reads and changes subscriptions, answers 503 for a rotation, and names the key where a secret is opened', async () => {
    const ws = await createTestWorkspace('Missing key');
    const key = (await ws.key({ name: 'Hooks' })).value;
    const own = await api('POST', '/webhooks', { key, body: { url: 'https://93.184.216.34/own', events: ['ticket.created'] } });
    expect(own.status).toBe(201);
    const foreign = await insertSealedUnder(ws, newKey('knotheld'));
    try {
      const list = await api('GET', '/webhooks', { key });
      expect(list.status, list.text).toBe(200);
      expect(list.body.data.map((s: { id: string }) => s.id).sort()).toEqual([own.body.id, foreign.id].sort());
      expect(list.text).not.toContain('whsec_');
      expect((await api('GET', `/webhooks/${foreign.id}`, { key })).status).toBe(200);
      const changed = await api('PATCH', `/webhooks/${foreign.id}`, { key, body: { description: 'still manageable' } });
      expect(changed.status, changed.text).toBe(200);
      const viaGraphQL = await api('POST', '/graphql', { key, body: { query: '{ webhookSubscriptions(first: 10) { edges { node { id } } } }' } });
      expect(viaGraphQL.body.errors).toBeUndefined();

      const rotation = await api('POST', `/webhooks/${foreign.id}/rotate-secret`, { key });
      expect(rotation.status, rotation.text).toBe(503);
      expect(rotation.body.code).toBe('service_unavailable');
      expect(rotation.headers.get('retry-after')).toBe('60');
      expect(rotation.text).not.toContain('knotheld');
      // Where a secret is opened (a delivery's batch), the error names the key the process needs.
      const ref = await createDelivery(ws, foreign.id);
      await expect(deliveryRepository.findForAttempt(ref.deliveryId)).rejects.toThrow(/key knotheld, which .* does not hold/);
    } finally {
      // The row goes: the tests below re-encrypt every stored secret, and check every stored key.
      await prisma.webhookSubscription.delete({ where: { id: foreign.id } });
    }
  });
});

describe('secrets reencrypt', () => {
  it('retires the other keys before it reads: a secret sealed under one after its last read is refused, and nothing is left under a dropped key', async () => {
    const ws = await createTestWorkspace('Retirement');
    const key = (await ws.key({ name: 'Hooks' })).value;
    const before = await api('POST', '/webhooks', { key, body: { url: 'https://93.184.216.34/before', events: ['ticket.created'] } });
    const oldKey = secretKeys.current();
    const lagging: { error?: unknown } = {};
    // Between the command's last read of the rows and its dropping the old key: a process that chose the old key just before.
    setInterleaveHook(async (point) => {
      if (point !== 'secrets:resealed') return;
      lagging.error = await insertSealedUnder(ws, oldKey).then(() => undefined, (err) => err);
    });
    const outcome = await runCommand(['secrets', 'reencrypt']);
    setInterleaveHook(null);
    expect(outcome.ok).toBe(true);
    const current = secretKeys.current();
    expect(current.id).not.toBe(oldKey.id);
    expect(outcome.ok && outcome.output).toContain(`Retired ${oldKey.id}`);
    expect(String((lagging.error as Error | undefined)?.message)).toContain(`sealed under the retired key ${oldKey.id}`);

    // Every row opens with the keys left (the key file holds the new key alone).
    expect(secretKeys.all().map((k) => k.id)).toEqual([current.id]);
    const rows = await prisma.webhookSubscription.findMany({ where: { workspaceId: ws.workspace.id } });
    expect(rows.map((r) => r.id)).toEqual([before.body.id]);
    for (const row of rows) {
      expect(sealedWith(row.secret)).toBe(current.id);
      expect(openSecrets(row).secret).toMatch(/^whsec_/);
    }
  });

  it('a process whose keys still put the retired key first refuses to start, and refuses to seal with a 503, saying which key', async () => {
    const ws = await createTestWorkspace('Lagging process');
    const key = (await ws.key({ name: 'Hooks' })).value;
    const oldKey = secretKeys.current();
    expect((await runCommand(['secrets', 'reencrypt'])).ok).toBe(true);
    const current = secretKeys.current();
    // As WEBHOOK_SECRET_KEYS of a process not yet restarted: the old key first.
    const lagging = new KeyRing([oldKey, current], path.join(config.dataDir, 'unused'));
    await expect(secretRepository.assertKeysPresent(lagging)).rejects.toThrow(new RegExp(`under key ${oldKey.id}, the first of WEBHOOK_SECRET_KEYS, which \`secrets reencrypt\` retired`));
    await expect(secretRepository.assertKeysPresent(new KeyRing([current, oldKey], path.join(config.dataDir, 'unused')))).resolves.toBeUndefined();

    // This process's key file put back with the old key first: a save seals under it, is refused, reads the file again, and answers 503.
    const file = keyFile(config.dataDir);
    const kept = fs.readFileSync(file, 'utf8');
    // Renamed into place, as `secrets reencrypt` writes it: a new file that the ring sees changed.
    const replace = (text: string) => {
      fs.writeFileSync(`${file}.test`, text, { mode: 0o600 });
      fs.renameSync(`${file}.test`, file);
    };
    replace(formatSecretKeys([oldKey, current]).replaceAll(',', '\n') + '\n');
    try {
      const refused = await api('POST', '/webhooks', { key, body: { url: 'https://93.184.216.34/lagging', events: ['ticket.created'] } });
      expect(refused.status, refused.text).toBe(503);
      expect(refused.body.code).toBe('service_unavailable');
      expect((await api('GET', '/webhooks', { key })).status).toBe(200);
    } finally {
      replace(kept);
    }
    // The newer key first again: saves seal under it.
    expect((await api('POST', '/webhooks', { key, body: { url: 'https://93.184.216.34/current', events: ['ticket.created'] } })).status).toBe(201);
    expect(await prisma.webhookSubscription.count({ where: { workspaceId: ws.workspace.id } })).toBe(1);
  });
});
