// Records the histories that test/webhooks/delivery/delivery-histories.test.ts replays: real delivery runs
// on the time-skipping server with the real worker, activities, receiver and database, in the
// states a deployment's runs sleep in. Run it when the workflow code changes on purpose (then
// the old histories need `patched()`, or no deployment has them: src/webhooks/README.md,
// "Histories that must keep replaying"):
//
//   npm run record:histories
//
// Each history is written to this folder as <name>.json (the SDK's JSON form of a history).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it, vi } from 'vitest';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { BATCHES_PER_RUN } from '../../../../src/webhooks/delivery/constants.ts';
import { deliveryRunWorkflowId } from '../../../../src/webhooks/delivery/ids.ts';
import { conditionRepository } from '../../../../src/webhooks/subscriptions/condition.repository.ts';
import { createTestWorkspace } from '../../../support/fixtures.ts';
import { uniqueId } from '../../../support/temporal.ts';
import { useTimeSkippingDeliveryStack } from '../../../support/delivery-stack.ts';
import { createDelivery, createSubscription, deliveryRow, runResult, wakeRunOf } from '../../fixtures.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const stack = useTimeSkippingDeliveryStack({ queue: 'histories', activities: (server) => ({ client: server.client, mailer: null }) });
type Workspace = Awaited<ReturnType<typeof createTestWorkspace>>;

async function save(client: Client, name: string, subscriptionId: string, runId?: string) {
  const history = await client.workflow.getHandle(deliveryRunWorkflowId(subscriptionId), runId).fetchHistory();
  fs.writeFileSync(path.join(here, `${name}.json`), `${JSON.stringify(JSON.parse(historyToJSON(history)))}\n`);
}

function hook(name: string) {
  const p = `/${uniqueId(name)}`;
  return { path: p, url: `${stack.receiver.origin}${p}` };
}

const deliveries = async (ws: Workspace, subscriptionId: string, n: number) => {
  const refs = [];
  for (let i = 0; i < n; i++) refs.push(await createDelivery(ws, subscriptionId));
  return refs;
};

it('records a run asleep before its seventh attempt (+24 h)', { timeout: 120_000 }, async () => {
  const ws = await createTestWorkspace();
  const { path: p, url } = hook('retry-24h');
  stack.receiver.respond(p, { status: 500 });
  const sub = await createSubscription(ws, { url });
  const [ref] = await deliveries(ws, sub.id, 1);
  await wakeRunOf(stack.env.client, stack.taskQueue, ref);
  // Six attempts take about 10.6 h of the schedule; the seventh is a day later.
  await stack.env.sleep('12h');
  await vi.waitFor(async () => expect((await deliveryRow(ref.deliveryId)).scheduledAttempts).toBe(6), 20_000);
  await save(stack.env.client, 'asleep-24h-retry', sub.id);
  await runResult(stack.env.client, sub.id);
});

it('records a run that continued as new', { timeout: 120_000 }, async () => {
  const ws = await createTestWorkspace();
  const { path: p, url } = hook('renew');
  stack.receiver.respond(p, { status: 204 });
  // Strictly ordered: one delivery a batch, so BATCHES_PER_RUN + 2 deliveries continue it as new once.
  const sub = await createSubscription(ws, { url, ordering: 'strict' });
  const refs = await deliveries(ws, sub.id, BATCHES_PER_RUN + 2);
  await wakeRunOf(stack.env.client, stack.taskQueue, refs[0]);
  await runResult(stack.env.client, sub.id);
  const last = await stack.env.client.workflow.getHandle(deliveryRunWorkflowId(sub.id)).describe();
  await save(stack.env.client, 'continued-as-new', sub.id, last.raw.workflowExecutionInfo?.firstRunId ?? undefined);
});

it('records a run that ended paused, with a delivery held', { timeout: 120_000 }, async () => {
  const ws = await createTestWorkspace();
  const { path: p, url } = hook('paused');
  const sub = await createSubscription(ws, { url });
  let paused = false;
  stack.receiver.respond(p, async () => {
    // The first answer comes after a person paused the subscription: the next event is held.
    if (!paused) {
      paused = true;
      await conditionRepository.pause(sub.id, { id: ws.admin.id, name: ws.admin.fullName });
    }
    return { status: 200 };
  });
  const [first] = await deliveries(ws, sub.id, 1);
  await wakeRunOf(stack.env.client, stack.taskQueue, first);
  await vi.waitFor(async () => expect((await deliveryRow(first.deliveryId)).status).toBe('succeeded'), 20_000);
  const [second] = await deliveries(ws, sub.id, 1);
  await wakeRunOf(stack.env.client, stack.taskQueue, second);
  expect(await runResult(stack.env.client, sub.id)).toMatchObject({ ended: 'paused' });
  expect((await deliveryRow(second.deliveryId)).status).toBe('held');
  await save(stack.env.client, 'ended-paused', sub.id);
});

it('records a strictly ordered run whose first event failed twice', { timeout: 120_000 }, async () => {
  const ws = await createTestWorkspace();
  const { path: p, url } = hook('strict');
  const sub = await createSubscription(ws, { url, ordering: 'strict', maxInFlight: 5 });
  const refs = await deliveries(ws, sub.id, 3);
  let failures = 0;
  stack.receiver.respond(p, (req) => (req.headers['webhook-id'] === refs[0].eventId && failures++ < 2 ? { status: 503, headers: { 'retry-after': '30' } } : { status: 200 }));
  await wakeRunOf(stack.env.client, stack.taskQueue, refs[0]);
  expect(await runResult(stack.env.client, sub.id)).toMatchObject({ ended: 'idle' });
  await save(stack.env.client, 'strict-with-retries', sub.id);
});
