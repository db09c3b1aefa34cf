// @vitest-environment postgres
// The retirement fence of `secrets reencrypt` between two transactions, on PostgreSQL (PGlite runs
// one transaction at a time): a seal under the old key that is under way when the command retires
// that key commits first, and the command's read of the rows then sees it and re-encrypts it. (The
// seal after the retirement, refused, is in secret-rotation.test.ts.) Ordering only, no timing.
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/admin/commands.ts';
import { prisma } from '../../../src/db/db.ts';
import { newId } from '../../../src/ids.ts';
import { sealSecret, sealedWith, secretKeys } from '../../../src/webhooks/message/secret-box.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { someoneWaitsForALock } from '../../support/lock-waits.ts';
import { openSecrets } from '../fixtures.ts';

describe('secrets reencrypt on PostgreSQL', () => {
  it('waits for a seal under the key it retires that is under way, then re-encrypts what it wrote', async () => {
    const ws = await createTestWorkspace('Seal under way');
    const oldKey = secretKeys.current();
    const id = newId('wh');
    const plain = 'whsec_' + 'w'.repeat(43);
    let sealed!: () => void;
    const sealedYet = new Promise<void>((r) => (sealed = r));
    let commit!: () => void;
    const committing = new Promise<void>((r) => (commit = r));
    // A process that chose the old key just before: its row is written, its transaction still open.
    const sealer = prisma.$transaction(
      async (tx) => {
        await tx.webhookSubscription.create({
          data: { id, workspaceId: ws.workspace.id, createdById: ws.admin.id, url: 'https://93.184.216.34/in', events: ['ticket.created'], secret: sealSecret(plain, { subscriptionId: id, column: 'secret' }, oldKey) },
        });
        sealed();
        await committing;
      },
      { timeout: 120_000 },
    );
    await sealedYet;
    const command = runCommand(['secrets', 'reencrypt']);
    // The retirement waits for the seal's transaction (the advisory lock the seal holds shared).
    expect(await Promise.race([command.then(() => 'finished' as const), someoneWaitsForALock()])).toBe('waiting');
    commit();
    await sealer;
    const outcome = await command;
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    const row = await prisma.webhookSubscription.findUniqueOrThrow({ where: { id } });
    expect(sealedWith(row.secret)).toBe(secretKeys.current().id);
    expect(sealedWith(row.secret)).not.toBe(oldKey.id);
    expect(openSecrets(row).secret).toBe(plain);
  });
});
