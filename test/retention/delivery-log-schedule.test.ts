// Retention on a real Temporal dev server: the Schedule exists once however often the service
// starts, and its workflow purges
// exactly the attempts older than 30 days. What each table keeps: retention.test.ts.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '@temporalio/worker';
import { prisma } from '../../src/db/db.ts';
import { createWorker } from '../../src/temporal/worker.ts';
import { createRetentionActivities } from '../../src/retention/retention.activities.ts';
import { ensureRetentionSchedule, RETENTION_SCHEDULE_ID } from '../../src/retention/retention.schedule.ts';
import { retentionWorkflow } from '../../src/retention/retention.workflows.ts';
import { createTestWorkspace } from '../support/fixtures.ts';
import { startTestDevServer, uniqueId, type TestDevServer } from '../support/temporal.ts';
import { createDelivery, createSubscription } from '../webhooks/fixtures.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('delivery log retention', () => {
  let dev: TestDevServer;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = uniqueId('retention');

  beforeAll(async () => {
    dev = await startTestDevServer();
    worker = await createWorker({
      connection: dev.nativeConnection,
      namespace: dev.namespace,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('../../src/retention/retention.workflows.ts', import.meta.url)),
      activities: createRetentionActivities(),
    });
    running = worker.run();
  }, 120_000);

  afterAll(async () => {
    worker?.shutdown();
    await running?.catch(() => undefined);
    await dev?.server.stop();
  }, 60_000);

  it('is a Temporal Schedule, created once, every hour', async () => {
    await ensureRetentionSchedule(dev.client, taskQueue);
    await ensureRetentionSchedule(dev.client, taskQueue);
    const schedules = [];
    for await (const s of dev.client.schedule.list()) schedules.push(s.scheduleId);
    expect(schedules.filter((id) => id === RETENTION_SCHEDULE_ID)).toHaveLength(1);
    const description = await dev.client.schedule.getHandle(RETENTION_SCHEDULE_ID).describe();
    expect(description.spec.intervals?.[0]?.every).toBe(60 * 60 * 1000);
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'retentionWorkflow', taskQueue });
  });

  it('purges the attempts older than 30 days and keeps the others', async () => {
    const ws = await createTestWorkspace();
    const sub = await createSubscription(ws, { url: 'https://r.example.com/' });
    const ref = await createDelivery(ws, sub.id);
    const ages = { old: 31 * DAY, recent: 29 * DAY, fresh: 0 };
    const ids: Record<string, string> = {};
    for (const [name, age] of Object.entries(ages)) {
      const row = await prisma.deliveryAttempt.create({
        data: {
          id: `att_${uniqueId(name).replace(/[^0-9a-z]/gi, '').toUpperCase().padEnd(26, '0').slice(0, 26)}`,
          deliveryId: ref.deliveryId,
          subscriptionId: sub.id,
          eventId: ref.eventId,
          eventType: ref.eventType,
          attempt: 1,
          trigger: 'scheduled',
          status: 'failed',
          payload: '{}',
          attemptedAt: new Date(Date.now() - age),
          workflowId: 'w',
        },
      });
      ids[name] = row.id;
    }
    const result = await dev.client.workflow.execute(retentionWorkflow, { taskQueue, workflowId: uniqueId('purge') });
    expect(result.attempts).toBeGreaterThanOrEqual(1);
    const left = (await prisma.deliveryAttempt.findMany({ where: { deliveryId: ref.deliveryId } })).map((a) => a.id).sort();
    expect(left).toEqual([ids.recent, ids.fresh].sort());
  });
});
