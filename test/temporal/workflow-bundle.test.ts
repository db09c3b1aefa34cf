// The workflow bundle made at build time (scripts/build.ts) is what a production worker runs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkflowBundle } from '../../scripts/build.ts';
import { prebuiltWorkflowBundle } from '../../src/temporal/workflow-bundle.ts';
import { deliveryRunWorkflow } from '../../src/webhooks/delivery/workflows.ts';
import type { ClaimResult } from '../../src/webhooks/delivery/queue.repository.ts';
import { createWorker } from '../../src/temporal/worker.ts';
import { startTestDevServer, uniqueId, type TestDevServer } from '../support/temporal.ts';

describe('prebuilt workflow bundle', () => {
  let env: TestDevServer;
  const outdir = mkdtempSync(path.join(tmpdir(), 'workflow-bundle-'));

  beforeAll(async () => {
    env = await startTestDevServer();
  }, 60_000);

  afterAll(async () => {
    await env?.teardown();
    rmSync(outdir, { recursive: true, force: true });
  }, 60_000);

  it('is used only where it was built', () => {
    expect(prebuiltWorkflowBundle(outdir)).toBeUndefined();
  });

  it('is built once per set of inputs and runs the workflows in a worker', { timeout: 120_000 }, async () => {
    expect(await buildWorkflowBundle(outdir)).toBe('built');
    expect(await buildWorkflowBundle(outdir)).toBe('unchanged');
    const bundle = prebuiltWorkflowBundle(outdir);
    expect(bundle).toEqual({ codePath: path.join(outdir, 'workflows-bundle.js') });
    // With the workflow interceptors of traces, which a worker cannot add to a prebuilt bundle.
    expect(readFileSync(path.join(outdir, 'workflows-bundle.js'), 'utf8')).toContain('./src/tracing/workflow-interceptors.ts');

    const taskQueue = uniqueId('bundle');
    const worker = await createWorker({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue,
      // Nothing to bundle here: the worker can only run what the prebuilt bundle holds.
      workflowsPath: path.join(outdir, 'no-such-workflows.ts'),
      workflowBundle: bundle,
      // A production workflow of the bundle, for a subscription whose queue is empty.
      activities: {
        claimDue: async (): Promise<ClaimResult> => ({
          stop: null, limit: 10, limitedBy: null, deliveries: [], settings: { maxInFlight: 10, ratePerSecond: null, strict: false }, nextDueAt: null, dueNow: false, capFull: false,
        }),
      },
    });
    const result = await worker.runUntil(
      env.client.workflow.execute(deliveryRunWorkflow, { args: [{ subscriptionId: 'wh_none', workspaceId: 1 }], taskQueue, workflowId: uniqueId('bundle-wf') }),
    );
    expect(result).toEqual({ attempted: 0, ended: 'idle' });
  });
});
