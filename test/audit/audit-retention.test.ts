// The audit log's retention: entries older than AUDIT_LOG_RETENTION_DAYS go, in batches; one on the
// window's edge and newer ones stay, whatever the workspace.
import { describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { config } from '../../src/config.ts';
import { newId } from '../../src/ids.ts';
import { purge, type RetentionPolicy } from '../../src/retention/retention.service.ts';
import { RETENTION_TARGETS } from '../../src/retention/retention.targets.ts';
import { createTestWorkspace } from '../support/fixtures.ts';

const DAY = 24 * 60 * 60 * 1000;
const now = new Date(Math.floor(Date.now() / 1000) * 1000);

async function entryAt(workspaceId: number, occurredAt: Date) {
  const row = await prisma.auditEntry.create({
    data: { id: newId('aud'), workspaceId, occurredAt, action: 'api_key.revoked', actorType: 'operator', actorLabel: 'cli', targetType: 'api_key', targetId: '1' },
  });
  return row.id;
}

describe('audit log retention', () => {
  it('is a retention target, kept 365 days unless configured', () => {
    expect(RETENTION_TARGETS).toContain('auditEntries');
    expect(config.retention.auditLogDays).toBe(365);
  });

  it('purges entries past the window in batches, keeps the edge and newer', async () => {
    const policy: RetentionPolicy = { webhookLogDays: 30, readNotificationDays: 30, batchSize: 2, auditLogDays: 10 };
    const cutoff = new Date(now.getTime() - 10 * DAY);
    const a = await createTestWorkspace();
    const b = await createTestWorkspace();
    const old = [
      await entryAt(a.workspace.id, new Date(cutoff.getTime() - 1000)),
      await entryAt(a.workspace.id, new Date(cutoff.getTime() - 5 * DAY)),
      await entryAt(b.workspace.id, new Date(cutoff.getTime() - 1000)),
    ];
    const kept = [await entryAt(a.workspace.id, cutoff), await entryAt(b.workspace.id, new Date(cutoff.getTime() + 1000))];
    const batches: number[] = [];
    const purged = await purge('auditEntries', { now, policy, onBatch: ({ deleted }) => batches.push(deleted) });
    expect(purged).toBeGreaterThanOrEqual(3);
    expect(batches.length).toBeGreaterThanOrEqual(2);
    expect(await prisma.auditEntry.count({ where: { id: { in: old } } })).toBe(0);
    expect(await prisma.auditEntry.count({ where: { id: { in: kept } } })).toBe(2);
  });
});
