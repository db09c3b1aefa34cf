// The time-skipping test server: a workflow sleeping 24 hours finishes in seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createHelloActivities } from './hello/activities.ts';
import { sleepThenGreetWorkflow } from './hello/workflows.ts';
import { createWorker } from '../../workflows/worker.ts';
import { createTimeSkippingEnv, helloWorkflowsPath, uniqueId } from '../support/temporal.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('time-skipping environment', () => {
  let env: TestWorkflowEnvironment;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  }, 60_000);

  afterAll(async () => {
    await env?.teardown();
  }, 60_000);

  it('skips a 24 hour timer', { timeout: 60_000 }, async () => {
    expect(env.supportsTimeSkipping).toBe(true);
    const taskQueue = uniqueId('sleep');
    const worker = await createWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowsPath: helloWorkflowsPath,
      activities: createHelloActivities(),
    });

    const wallStart = Date.now();
    const result = await worker.runUntil(
      env.client.workflow.execute(sleepThenGreetWorkflow, {
        args: ['Grace'],
        taskQueue,
        workflowId: uniqueId('sleep-wf'),
      }),
    );
    const wallMs = Date.now() - wallStart;

    expect(result.greeting).toBe('Hello, Grace!');
    expect(result.finishedAtMs - result.startedAtMs).toBeGreaterThanOrEqual(DAY_MS);
    expect(wallMs).toBeLessThan(30_000);
  });
});
