// The audit log's entries of the subscription actions that start a Temporal workflow rather than
// change a row: a recovery (once its workflow started) and a re-send (when accepted). A dev server
// and no worker: starting is what is recorded, not what the workflows then do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prisma } from '../../src/db/db.ts';
import { apiKeyService } from '../../src/api-keys/api-key.service.ts';
import { deliveryLogService } from '../../src/webhooks/log/delivery-log.service.ts';
import { closeTemporal, useTemporal } from '../../src/temporal/client.ts';
import { api, createTestWorkspace } from '../support/fixtures.ts';
import { startTestDevServer, uniqueId, type TestDevServer } from '../support/temporal.ts';
import { createDelivery, createSubscription } from '../webhooks/fixtures.ts';

let dev: TestDevServer;

beforeAll(async () => {
  dev = await startTestDevServer();
  useTemporal(dev.address, uniqueId('audit'));
}, 60_000);

afterAll(async () => {
  await closeTemporal();
  await dev?.server.stop();
}, 60_000);

describe('audit log: actions that start a workflow', () => {
  it('records a started recovery with its window, and a requested re-send with its delivery', async () => {
    const ws = await createTestWorkspace();
    const key = await ws.key({ scopes: ['webhooks:manage'] });
    const sub = await createSubscription(ws, { url: 'https://93.184.216.34/audit' });
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const recovered = await api('POST', `/webhooks/${sub.id}/recover`, { key: key.value, body: { since } });
    expect(recovered.status).toBe(202);

    const delivery = await createDelivery(ws, sub.id);
    const principal = await apiKeyService.authenticate(key.value);
    // No wait for the attempt (no worker runs it): the answer is the pending delivery.
    const resent = await deliveryLogService.resend(principal, sub.id, delivery.deliveryId, uniqueId('req'), 0);
    expect(resent.status).toBe('pending');

    const rows = await prisma.auditEntry.findMany({ where: { workspaceId: ws.workspace.id, targetType: 'webhook_subscription' }, orderBy: { id: 'asc' } });
    expect(rows.map((r) => [r.action, r.actorType, r.actorId, r.targetId])).toEqual([
      ['webhook_subscription.recovery_started', 'api_key', String(key.record.id), sub.id],
      ['webhook_subscription.delivery_resend_requested', 'api_key', String(key.record.id), sub.id],
    ]);
    expect(rows[0].changes).toEqual([
      { field: 'since', before: null, after: since },
      { field: 'until', before: null, after: recovered.body.until },
    ]);
    expect(rows[1].changes).toEqual([{ field: 'deliveryId', before: null, after: delivery.deliveryId }]);
    expect(JSON.stringify(rows)).not.toContain(sub.secret);
  });
});
