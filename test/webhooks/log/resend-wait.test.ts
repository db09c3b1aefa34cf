// A re-send answers within its wait (15 s in production): the attempt when it has a result by
// then, else the delivery as `pending` with the re-send's workflow id, and REST says 202. Here no
// worker polls the task queue, so the re-send never gets a result: the answer cannot depend on time.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closeTemporal, useTemporal } from '../../../src/temporal/client.ts';
import { authenticateRequest } from '../../../src/api/authenticate.ts';
import { deliveryLogService } from '../../../src/webhooks/log/delivery-log.service.ts';
import { routes } from '../../../src/api/routes.ts';
import { resendWorkflowId } from '../../../src/webhooks/delivery/ids.ts';
import { resendDelivery } from '../../../src/webhooks/delivery/client.ts';
import { createTestWorkspace } from '../../support/fixtures.ts';
import { startTestDevServer, uniqueId, type TestDevServer } from '../../support/temporal.ts';
import { createDelivery, createSubscription } from '../fixtures.ts';

describe('re-send without a result in time', () => {
  let dev: TestDevServer;
  beforeAll(async () => {
    dev = await startTestDevServer();
    useTemporal(dev.address, uniqueId('no-worker'));
  }, 180_000);
  afterAll(async () => {
    await closeTemporal();
    await dev?.teardown();
  }, 60_000);

  it('answers the delivery as pending with the re-send’s workflow id, and REST maps that to 202', async () => {
    const ws = await createTestWorkspace('Resend wait');
    const key = await ws.key({ scopes: ['webhooks:manage'] });
    const { principal } = await authenticateRequest(new Headers({ authorization: `Bearer ${key.value}` }), { required: true });
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/slow' });
    const ref = await createDelivery(ws, sub.id);

    const entry = await deliveryLogService.resend(principal!, sub.id, ref.deliveryId, 'req-wait', 50);
    expect(entry).toMatchObject({ id: ref.deliveryId, deliveryId: ref.deliveryId, status: 'pending', trigger: 'manual', attemptedAt: null });
    expect(entry.workflowId).toBe(resendWorkflowId(ref.deliveryId, 'req-wait'));
    // The re-send was started (its start may finish just after the answer) and goes on.
    await vi.waitFor(async () => expect((await dev.client.workflow.getHandle(entry.workflowId).describe()).status.name).toBe('RUNNING'), { timeout: 30_000, interval: 250 });

    const route = routes.find((r) => r.operationId === 'resendWebhookDelivery')!;
    expect(route.statusOf?.(entry)).toBe(202);
    expect(route.statusOf?.({ ...entry, status: 'failed' })).toBeUndefined();
  }, 120_000);

  it('stops waiting for the result when told, before or after the start, and the re-send goes on', async () => {
    const ws = await createTestWorkspace('Resend stop waiting');
    const sub = await createSubscription(ws, { url: 'https://hooks.example.com/slow' });
    const ref = await createDelivery(ws, sub.id);
    const taskQueue = uniqueId('no-worker');

    // Without a worker the result never comes: only the signal can end these calls.
    const during = await resendDelivery(dev.client, taskQueue, ref, 'stop-during', AbortSignal.timeout(200));
    expect(during).toEqual({ workflowId: resendWorkflowId(ref.deliveryId, 'stop-during'), result: null });
    const before = await resendDelivery(dev.client, taskQueue, ref, 'stop-before', AbortSignal.abort());
    expect(before).toEqual({ workflowId: resendWorkflowId(ref.deliveryId, 'stop-before'), result: null });
    for (const { workflowId } of [during, before]) {
      expect((await dev.client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
    }
  }, 60_000);
});
